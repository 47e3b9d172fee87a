package queue

import (
	"encoding/base64"
	"errors"
	"strings"
	"time"
)

// Request and response shapes follow the SQS Smithy model member names
// (docs/aws-behaviour.md §3.4) and aws-sdk-go-v2's request_snapshot /
// response_snapshot files for service/sqs v1.53.0.

// wireAttribute is MessageAttributeValue / MessageSystemAttributeValue.
// BinaryValue travels base64-encoded, which encoding/json does for []byte.
type wireAttribute struct {
	DataType         string   `json:"DataType"`
	StringValue      *string  `json:"StringValue,omitempty"`
	BinaryValue      []byte   `json:"BinaryValue,omitempty"`
	StringListValues []string `json:"StringListValues,omitempty"`
	BinaryListValues [][]byte `json:"BinaryListValues,omitempty"`
}

func toAttributes(in map[string]wireAttribute) (map[string]MessageAttribute, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]MessageAttribute, len(in))
	for name, w := range in {
		if len(w.StringListValues) > 0 || len(w.BinaryListValues) > 0 {
			// "Not implemented. Reserved for future use." (MessageAttributeValue doc).
			return nil, errorf(ErrInvalidParameterValue,
				"Message (user) attribute '%s': StringListValues and BinaryListValues are reserved for future use and not supported.", name)
		}
		a := MessageAttribute{DataType: w.DataType, BinaryValue: w.BinaryValue}
		if w.StringValue != nil {
			a.StringValue = *w.StringValue
		}
		if a.isBinary() {
			a.StringValue = ""
		} else {
			a.BinaryValue = nil
		}
		out[name] = a
	}
	return out, nil
}

func fromAttributes(in map[string]MessageAttribute) map[string]wireAttribute {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]wireAttribute, len(in))
	for name, a := range in {
		w := wireAttribute{DataType: a.DataType}
		if a.isBinary() {
			w.BinaryValue = a.BinaryValue
		} else {
			v := a.StringValue
			w.StringValue = &v
		}
		out[name] = w
	}
	return out
}

// sendFields are the members SendMessage and SendMessageBatch entries share.
type sendFields struct {
	MessageBody             *string                  `json:"MessageBody"`
	DelaySeconds            *int64                   `json:"DelaySeconds"`
	MessageAttributes       map[string]wireAttribute `json:"MessageAttributes"`
	MessageSystemAttributes map[string]wireAttribute `json:"MessageSystemAttributes"`
	MessageDeduplicationID  *string                  `json:"MessageDeduplicationId"`
	MessageGroupID          *string                  `json:"MessageGroupId"`
}

func (f sendFields) input(sender string) (SendInput, error) {
	if f.MessageBody == nil || *f.MessageBody == "" {
		return SendInput{}, errMissing("MessageBody")
	}
	in := SendInput{Body: *f.MessageBody, SenderID: sender}
	if f.DelaySeconds != nil {
		if *f.DelaySeconds < 0 || *f.DelaySeconds > maxDelaySeconds {
			return SendInput{}, errInvalidParam(*f.DelaySeconds, "DelaySeconds", "DelaySeconds must be >= 0 and <= 900.")
		}
		d := time.Duration(*f.DelaySeconds) * time.Second
		in.Delay = &d
	}
	attrs, err := toAttributes(f.MessageAttributes)
	if err != nil {
		return SendInput{}, err
	}
	in.MessageAttributes = attrs
	for name, w := range f.MessageSystemAttributes {
		if name != SysAWSTraceHeader {
			return SendInput{}, errorf(ErrInvalidParameterValue, "Message system attribute name '%s' is invalid.", name)
		}
		if w.DataType != "String" || w.StringValue == nil {
			return SendInput{}, errorf(ErrInvalidParameterValue, "Message (system) attribute '%s' must contain a non-empty value of type 'String'.", name)
		}
		in.TraceHeader = *w.StringValue
	}
	if f.MessageDeduplicationID != nil {
		return SendInput{}, errInvalidParam(*f.MessageDeduplicationID, "MessageDeduplicationId",
			"The request include parameter that is not valid for this queue type.")
	}
	if f.MessageGroupID != nil {
		in.MessageGroupID = *f.MessageGroupID
	}
	return in, nil
}

func (f sendFields) size() int {
	n := 0
	if f.MessageBody != nil {
		n += len(*f.MessageBody)
	}
	for name, w := range f.MessageAttributes {
		n += len(name) + len(w.DataType) + len(w.BinaryValue)
		if w.StringValue != nil {
			n += len(*w.StringValue)
		}
	}
	return n
}

type sendMessageRequest struct {
	QueueURL string `json:"QueueUrl"`
	sendFields
}

type sendMessageResponse struct {
	MessageID                    string `json:"MessageId"`
	MD5OfMessageBody             string `json:"MD5OfMessageBody"`
	MD5OfMessageAttributes       string `json:"MD5OfMessageAttributes,omitempty"`
	MD5OfMessageSystemAttributes string `json:"MD5OfMessageSystemAttributes,omitempty"`
}

func (s *Service) httpSendMessage(c *call) (any, error) {
	var req sendMessageRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	in, err := req.input(c.senderID)
	if err != nil {
		return nil, err
	}
	res, err := s.SendMessage(c.ctx, req.QueueURL, in)
	if err != nil {
		return nil, err
	}
	return sendMessageResponse{res.MessageID, res.MD5OfMessageBody, res.MD5OfMessageAttributes, res.MD5OfMessageSystemAttributes}, nil
}

type batchResultError struct {
	ID          string `json:"Id"`
	SenderFault bool   `json:"SenderFault"`
	Code        string `json:"Code"`
	Message     string `json:"Message,omitempty"`
}

// entryFailure turns an engine error into a batch entry failure; errors
// that are not SQS errors (a cancelled request) fail the whole batch.
func entryFailure(id string, err error) (batchResultError, error) {
	var e *Error
	if !errors.As(err, &e) {
		return batchResultError{}, err
	}
	return batchResultError{ID: id, SenderFault: e.Status < 500, Code: e.Code, Message: e.Message}, nil
}

// checkBatch applies the batch-level rules (AWS-recorded messages,
// docs/aws-behaviour.md §3.3) to the entry ids.
func checkBatch(ids []*string, entryShape string) error {
	if len(ids) == 0 {
		return errorf(ErrEmptyBatchRequest, "There should be at least one %s in the request.", entryShape)
	}
	if len(ids) > maxBatchEntries {
		return errorf(ErrTooManyEntriesInBatchRequest, "Maximum number of entries per request are %d. You have sent %d.", maxBatchEntries, len(ids))
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id == nil {
			return errMissing("Id")
		}
		if err := validBatchID(*id); err != nil {
			return err
		}
		if seen[*id] {
			return errorf(ErrBatchEntryIdsNotDistinct, "Id %s repeated.", *id)
		}
		seen[*id] = true
	}
	return nil
}

type sendBatchEntry struct {
	ID *string `json:"Id"`
	sendFields
}

type sendBatchRequest struct {
	QueueURL string           `json:"QueueUrl"`
	Entries  []sendBatchEntry `json:"Entries"`
}

type sendBatchResult struct {
	ID                           string `json:"Id"`
	MessageID                    string `json:"MessageId"`
	MD5OfMessageBody             string `json:"MD5OfMessageBody"`
	MD5OfMessageAttributes       string `json:"MD5OfMessageAttributes,omitempty"`
	MD5OfMessageSystemAttributes string `json:"MD5OfMessageSystemAttributes,omitempty"`
}

type sendBatchResponse struct {
	Successful []sendBatchResult  `json:"Successful"`
	Failed     []batchResultError `json:"Failed"`
}

func (s *Service) httpSendMessageBatch(c *call) (any, error) {
	var req sendBatchRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	if _, err := s.Queue(req.QueueURL); err != nil {
		return nil, err
	}
	ids := make([]*string, len(req.Entries))
	total := 0
	for i, e := range req.Entries {
		ids[i] = e.ID
		total += e.size()
	}
	if err := checkBatch(ids, "SendMessageBatchRequestEntry"); err != nil {
		return nil, err
	}
	if total > maxBatchBytes {
		return nil, errorf(ErrBatchRequestTooLong, "Batch requests cannot be longer than %d bytes. You have sent %d bytes.", maxBatchBytes, total)
	}
	resp := sendBatchResponse{Successful: []sendBatchResult{}, Failed: []batchResultError{}}
	for _, e := range req.Entries {
		in, err := e.input(c.senderID)
		var res SendResult
		if err == nil {
			res, err = s.send(c.ctx, req.QueueURL, in, true)
		}
		if err != nil {
			f, ferr := entryFailure(*e.ID, err)
			if ferr != nil {
				return nil, ferr
			}
			resp.Failed = append(resp.Failed, f)
			continue
		}
		resp.Successful = append(resp.Successful, sendBatchResult{*e.ID, res.MessageID, res.MD5OfMessageBody, res.MD5OfMessageAttributes, res.MD5OfMessageSystemAttributes})
	}
	return resp, nil
}

type receiveRequest struct {
	QueueURL                    string   `json:"QueueUrl"`
	AttributeNames              []string `json:"AttributeNames"`
	MessageSystemAttributeNames []string `json:"MessageSystemAttributeNames"`
	MessageAttributeNames       []string `json:"MessageAttributeNames"`
	MaxNumberOfMessages         *int64   `json:"MaxNumberOfMessages"`
	VisibilityTimeout           *int64   `json:"VisibilityTimeout"`
	WaitTimeSeconds             *int64   `json:"WaitTimeSeconds"`
	ReceiveRequestAttemptID     *string  `json:"ReceiveRequestAttemptId"` // FIFO only; ignored
}

type wireMessage struct {
	MessageID              string                   `json:"MessageId"`
	ReceiptHandle          string                   `json:"ReceiptHandle"`
	MD5OfBody              string                   `json:"MD5OfBody"`
	Body                   string                   `json:"Body"`
	Attributes             map[string]string        `json:"Attributes,omitempty"`
	MD5OfMessageAttributes string                   `json:"MD5OfMessageAttributes,omitempty"`
	MessageAttributes      map[string]wireAttribute `json:"MessageAttributes,omitempty"`
}

type receiveResponse struct {
	Messages []wireMessage `json:"Messages,omitempty"`
}

// attributeFilter selects message attributes by MessageAttributeNames:
// "All", ".*" and "*" select all, "prefix.*" selects by prefix, anything
// else by exact name; no names select none (AWS-recorded filters, LocalStack
// test_receive_message_message_attribute_names_filters).
func attributeFilter(names []string) func(string) bool {
	if len(names) == 0 {
		return func(string) bool { return false }
	}
	exact := map[string]bool{}
	var prefixes []string
	for _, n := range names {
		switch {
		case n == "All" || n == ".*" || n == "*":
			return func(string) bool { return true }
		case strings.HasSuffix(n, ".*"):
			prefixes = append(prefixes, strings.TrimSuffix(n, ".*"))
		default:
			exact[n] = true
		}
	}
	return func(name string) bool {
		if exact[name] {
			return true
		}
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
}

func (s *Service) httpReceiveMessage(c *call) (any, error) {
	var req receiveRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	// Range checks with the AWS-recorded messages (docs/aws-behaviour.md §3.3).
	max := 1
	if req.MaxNumberOfMessages != nil {
		if *req.MaxNumberOfMessages < 1 || *req.MaxNumberOfMessages > maxMessagesPerReceive {
			return nil, errInvalidParam(*req.MaxNumberOfMessages, "MaxNumberOfMessages", "Must be between 1 and 10, if provided.")
		}
		max = int(*req.MaxNumberOfMessages)
	}
	wait := QueueDefault
	if req.WaitTimeSeconds != nil {
		if *req.WaitTimeSeconds < 0 || *req.WaitTimeSeconds > maxWaitSeconds {
			return nil, errInvalidParam(*req.WaitTimeSeconds, "WaitTimeSeconds", "Must be >= 0 and <= 20, if provided.")
		}
		wait = time.Duration(*req.WaitTimeSeconds) * time.Second
	}
	vis := QueueDefault
	if req.VisibilityTimeout != nil {
		if *req.VisibilityTimeout < 0 || *req.VisibilityTimeout > maxVisibilitySeconds {
			return nil, errInvalidParam(*req.VisibilityTimeout, "VisibilityTimeout", "Must be >= 0 and <= 43200, if provided.")
		}
		vis = time.Duration(*req.VisibilityTimeout) * time.Second
	}
	msgs, err := s.Receive(c.ctx, req.QueueURL, max, wait, vis)
	if err != nil {
		return nil, err
	}
	// The deprecated AttributeNames and MessageSystemAttributeNames are
	// read as one list (docs/aws-behaviour.md §3.4).
	sysNames := append(append([]string{}, req.AttributeNames...), req.MessageSystemAttributeNames...)
	allSys := false
	wantSys := map[string]bool{}
	for _, n := range sysNames {
		if n == "All" {
			allSys = true
		}
		wantSys[n] = true
	}
	pick := attributeFilter(req.MessageAttributeNames)
	resp := receiveResponse{}
	for _, m := range msgs {
		wm := wireMessage{MessageID: m.MessageID, ReceiptHandle: m.ReceiptHandle, MD5OfBody: m.MD5OfBody, Body: m.Body}
		for n, v := range m.Attributes {
			if allSys || wantSys[n] {
				if wm.Attributes == nil {
					wm.Attributes = map[string]string{}
				}
				wm.Attributes[n] = v
			}
		}
		var chosen map[string]MessageAttribute
		for n, a := range m.MessageAttributes {
			if pick(n) {
				if chosen == nil {
					chosen = map[string]MessageAttribute{}
				}
				chosen[n] = a
			}
		}
		wm.MessageAttributes = fromAttributes(chosen)
		wm.MD5OfMessageAttributes = MD5OfMessageAttributes(chosen)
		resp.Messages = append(resp.Messages, wm)
	}
	return resp, nil
}

type receiptRequest struct {
	QueueURL          string  `json:"QueueUrl"`
	ReceiptHandle     *string `json:"ReceiptHandle"`
	VisibilityTimeout *int64  `json:"VisibilityTimeout"`
}

func (s *Service) httpDeleteMessage(c *call) (any, error) {
	var req receiptRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	if req.ReceiptHandle == nil || *req.ReceiptHandle == "" {
		return nil, errMissing("ReceiptHandle")
	}
	return empty{}, s.Delete(req.QueueURL, *req.ReceiptHandle)
}

// changeVisibility validates the timeout before converting it, so huge
// values cannot overflow a Duration.
func (s *Service) changeVisibility(queueURL string, handle *string, timeout *int64) error {
	if handle == nil || *handle == "" {
		return errMissing("ReceiptHandle")
	}
	if timeout == nil {
		return errMissing("VisibilityTimeout")
	}
	if *timeout < 0 || *timeout > maxVisibilitySeconds {
		return errInvalidParam(*timeout, "VisibilityTimeout", "Must be >= 0 and <= 43200, if provided.")
	}
	return s.ChangeVisibility(queueURL, *handle, time.Duration(*timeout)*time.Second)
}

func (s *Service) httpChangeMessageVisibility(c *call) (any, error) {
	var req receiptRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	return empty{}, s.changeVisibility(req.QueueURL, req.ReceiptHandle, req.VisibilityTimeout)
}

type receiptBatchEntry struct {
	ID                *string `json:"Id"`
	ReceiptHandle     *string `json:"ReceiptHandle"`
	VisibilityTimeout *int64  `json:"VisibilityTimeout"`
}

type receiptBatchRequest struct {
	QueueURL string              `json:"QueueUrl"`
	Entries  []receiptBatchEntry `json:"Entries"`
}

type batchResultOK struct {
	ID string `json:"Id"`
}

type receiptBatchResponse struct {
	Successful []batchResultOK    `json:"Successful"`
	Failed     []batchResultError `json:"Failed"`
}

// receiptBatch runs op on every entry of a DeleteMessageBatch or
// ChangeMessageVisibilityBatch request, collecting per-entry failures.
func (s *Service) receiptBatch(c *call, entryShape string, op func(queueURL string, e receiptBatchEntry) error) (any, error) {
	var req receiptBatchRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	if _, err := s.Queue(req.QueueURL); err != nil {
		return nil, err
	}
	ids := make([]*string, len(req.Entries))
	for i, e := range req.Entries {
		ids[i] = e.ID
	}
	if err := checkBatch(ids, entryShape); err != nil {
		return nil, err
	}
	resp := receiptBatchResponse{Successful: []batchResultOK{}, Failed: []batchResultError{}}
	for _, e := range req.Entries {
		if err := op(req.QueueURL, e); err != nil {
			f, ferr := entryFailure(*e.ID, err)
			if ferr != nil {
				return nil, ferr
			}
			resp.Failed = append(resp.Failed, f)
			continue
		}
		resp.Successful = append(resp.Successful, batchResultOK{*e.ID})
	}
	return resp, nil
}

func (s *Service) httpDeleteMessageBatch(c *call) (any, error) {
	return s.receiptBatch(c, "DeleteMessageBatchRequestEntry", func(u string, e receiptBatchEntry) error {
		if e.ReceiptHandle == nil || *e.ReceiptHandle == "" {
			return errMissing("ReceiptHandle")
		}
		return s.Delete(u, *e.ReceiptHandle)
	})
}

func (s *Service) httpChangeMessageVisibilityBatch(c *call) (any, error) {
	return s.receiptBatch(c, "ChangeMessageVisibilityBatchRequestEntry", func(u string, e receiptBatchEntry) error {
		return s.changeVisibility(u, e.ReceiptHandle, e.VisibilityTimeout)
	})
}

type createQueueRequest struct {
	QueueName  string            `json:"QueueName"`
	Attributes map[string]string `json:"Attributes"`
	Tags       map[string]string `json:"tags"` // lower-case in the model
}

type queueURLResponse struct {
	QueueURL string `json:"QueueUrl"`
}

func (s *Service) httpCreateQueue(c *call) (any, error) {
	var req createQueueRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if req.QueueName == "" {
		return nil, errMissing("QueueName")
	}
	info, err := s.CreateQueue(req.QueueName, req.Attributes, req.Tags)
	if err != nil {
		return nil, err
	}
	return queueURLResponse{info.URL(c.endpoint)}, nil
}

type getQueueURLRequest struct {
	QueueName              string `json:"QueueName"`
	QueueOwnerAWSAccountID string `json:"QueueOwnerAWSAccountId"`
}

func (s *Service) httpGetQueueURL(c *call) (any, error) {
	var req getQueueURLRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if req.QueueName == "" {
		return nil, errMissing("QueueName")
	}
	if !queueNameRE.MatchString(req.QueueName) ||
		(req.QueueOwnerAWSAccountID != "" && req.QueueOwnerAWSAccountID != s.opts.AccountID) {
		return nil, errNoQueue()
	}
	info, err := s.Queue(req.QueueName)
	if err != nil {
		return nil, err
	}
	return queueURLResponse{info.URL(c.endpoint)}, nil
}

type queueRequest struct {
	QueueURL string `json:"QueueUrl"`
}

func (s *Service) decodeQueueRequest(c *call) (string, error) {
	var req queueRequest
	if err := decode(c, &req); err != nil {
		return "", err
	}
	return req.QueueURL, requireQueueURL(req.QueueURL)
}

func (s *Service) httpDeleteQueue(c *call) (any, error) {
	u, err := s.decodeQueueRequest(c)
	if err != nil {
		return nil, err
	}
	return empty{}, s.DeleteQueue(u)
}

func (s *Service) httpPurgeQueue(c *call) (any, error) {
	u, err := s.decodeQueueRequest(c)
	if err != nil {
		return nil, err
	}
	return empty{}, s.Purge(u)
}

type getAttributesRequest struct {
	QueueURL       string   `json:"QueueUrl"`
	AttributeNames []string `json:"AttributeNames"`
}

type attributesResponse struct {
	Attributes map[string]string `json:"Attributes,omitempty"`
}

func (s *Service) httpGetQueueAttributes(c *call) (any, error) {
	var req getAttributesRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	if len(req.AttributeNames) == 0 {
		// No names, no attributes (AWS returns an empty result).
		_, err := s.Queue(req.QueueURL)
		return attributesResponse{}, err
	}
	attrs, err := s.Attributes(req.QueueURL, req.AttributeNames...)
	if err != nil {
		return nil, err
	}
	return attributesResponse{attrs}, nil
}

type setAttributesRequest struct {
	QueueURL   string            `json:"QueueUrl"`
	Attributes map[string]string `json:"Attributes"`
}

func (s *Service) httpSetQueueAttributes(c *call) (any, error) {
	var req setAttributesRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	if req.Attributes == nil {
		return nil, errMissing("Attributes")
	}
	return empty{}, s.SetAttributes(req.QueueURL, req.Attributes)
}

type listRequest struct {
	QueueURL        string `json:"QueueUrl"`
	QueueNamePrefix string `json:"QueueNamePrefix"`
	NextToken       string `json:"NextToken"`
	MaxResults      *int64 `json:"MaxResults"`
}

// paginate pages a name-sorted list. Tokens are the base64 of the last
// name returned; without MaxResults at most 1,000 results and no token
// (ListQueues API reference).
func paginate(all []QueueInfo, token string, maxResults *int64) ([]QueueInfo, string, error) {
	limit := 1000
	if maxResults != nil {
		if *maxResults < 1 || *maxResults > 1000 {
			return nil, "", errInvalidParam(*maxResults, "MaxResults", "MaxResults must be an integer between 1 and 1000.")
		}
		limit = int(*maxResults)
	}
	start := 0
	if token != "" {
		after, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil {
			return nil, "", errorf(ErrInvalidParameterValue, "Invalid NextToken value.")
		}
		for start < len(all) && all[start].Name <= string(after) {
			start++
		}
	}
	page := all[start:]
	if len(page) <= limit {
		return page, "", nil
	}
	page = page[:limit]
	if maxResults == nil {
		return page, "", nil
	}
	return page, base64.RawURLEncoding.EncodeToString([]byte(page[len(page)-1].Name)), nil
}

type listQueuesResponse struct {
	QueueUrls []string `json:"QueueUrls,omitempty"`
	NextToken string   `json:"NextToken,omitempty"`
}

func (s *Service) httpListQueues(c *call) (any, error) {
	var req listRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	page, next, err := paginate(s.ListQueues(req.QueueNamePrefix), req.NextToken, req.MaxResults)
	if err != nil {
		return nil, err
	}
	resp := listQueuesResponse{NextToken: next}
	for _, q := range page {
		resp.QueueUrls = append(resp.QueueUrls, q.URL(c.endpoint))
	}
	return resp, nil
}

type deadLetterSourcesResponse struct {
	QueueUrls []string `json:"queueUrls"` // lower-case in the model, and required
	NextToken string   `json:"NextToken,omitempty"`
}

func (s *Service) httpListDeadLetterSourceQueues(c *call) (any, error) {
	var req listRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	sources, err := s.DeadLetterSourceQueues(req.QueueURL)
	if err != nil {
		return nil, err
	}
	page, next, err := paginate(sources, req.NextToken, req.MaxResults)
	if err != nil {
		return nil, err
	}
	resp := deadLetterSourcesResponse{QueueUrls: []string{}, NextToken: next}
	for _, q := range page {
		resp.QueueUrls = append(resp.QueueUrls, q.URL(c.endpoint))
	}
	return resp, nil
}

type tagRequest struct {
	QueueURL string            `json:"QueueUrl"`
	Tags     map[string]string `json:"Tags"`
	TagKeys  []string          `json:"TagKeys"`
}

type tagsResponse struct {
	Tags map[string]string `json:"Tags,omitempty"`
}

func (s *Service) httpTagQueue(c *call) (any, error) {
	var req tagRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	if req.Tags == nil {
		return nil, errMissing("Tags")
	}
	return empty{}, s.Tag(req.QueueURL, req.Tags)
}

func (s *Service) httpUntagQueue(c *call) (any, error) {
	var req tagRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	if req.TagKeys == nil {
		return nil, errMissing("TagKeys")
	}
	return empty{}, s.Untag(req.QueueURL, req.TagKeys)
}

func (s *Service) httpListQueueTags(c *call) (any, error) {
	u, err := s.decodeQueueRequest(c)
	if err != nil {
		return nil, err
	}
	tags, err := s.Tags(u)
	if err != nil {
		return nil, err
	}
	return tagsResponse{tags}, nil
}

type permissionRequest struct {
	QueueURL      string   `json:"QueueUrl"`
	Label         string   `json:"Label"`
	AWSAccountIDs []string `json:"AWSAccountIds"`
	Actions       []string `json:"Actions"`
}

func (s *Service) httpAddPermission(c *call) (any, error) {
	var req permissionRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	if req.Label == "" {
		return nil, errMissing("Label")
	}
	return empty{}, s.AddPermission(req.QueueURL, req.Label, req.AWSAccountIDs, req.Actions)
}

func (s *Service) httpRemovePermission(c *call) (any, error) {
	var req permissionRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := requireQueueURL(req.QueueURL); err != nil {
		return nil, err
	}
	if req.Label == "" {
		return nil, errMissing("Label")
	}
	return empty{}, s.RemovePermission(req.QueueURL, req.Label)
}

type startMoveRequest struct {
	SourceArn                    string `json:"SourceArn"`
	DestinationArn               string `json:"DestinationArn"`
	MaxNumberOfMessagesPerSecond *int64 `json:"MaxNumberOfMessagesPerSecond"`
}

type startMoveResponse struct {
	TaskHandle string `json:"TaskHandle"`
}

func (s *Service) httpStartMessageMoveTask(c *call) (any, error) {
	var req startMoveRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if req.SourceArn == "" {
		return nil, errMissing("SourceArn")
	}
	rate := 0
	if r := req.MaxNumberOfMessagesPerSecond; r != nil {
		if *r < 1 || *r > maxMoveRate {
			return nil, errInvalidParam(*r, "MaxNumberOfMessagesPerSecond", "Must be between 1 and 500.")
		}
		rate = int(*r)
	}
	h, err := s.StartMoveTask(req.SourceArn, req.DestinationArn, rate)
	if err != nil {
		return nil, err
	}
	return startMoveResponse{h}, nil
}

type listMoveRequest struct {
	SourceArn  string `json:"SourceArn"`
	MaxResults *int64 `json:"MaxResults"`
}

type moveTaskResult struct {
	ApproximateNumberOfMessagesMoved  int64  `json:"ApproximateNumberOfMessagesMoved"`
	ApproximateNumberOfMessagesToMove int64  `json:"ApproximateNumberOfMessagesToMove"`
	DestinationArn                    string `json:"DestinationArn,omitempty"`
	FailureReason                     string `json:"FailureReason,omitempty"`
	MaxNumberOfMessagesPerSecond      *int   `json:"MaxNumberOfMessagesPerSecond,omitempty"`
	SourceArn                         string `json:"SourceArn"`
	StartedTimestamp                  int64  `json:"StartedTimestamp"`
	Status                            string `json:"Status"`
	TaskHandle                        string `json:"TaskHandle,omitempty"`
}

type listMoveResponse struct {
	Results []moveTaskResult `json:"Results"`
}

func (s *Service) httpListMessageMoveTasks(c *call) (any, error) {
	var req listMoveRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if req.SourceArn == "" {
		return nil, errMissing("SourceArn")
	}
	max := 0
	if req.MaxResults != nil {
		if *req.MaxResults < 1 || *req.MaxResults > maxTaskHistory {
			return nil, errInvalidParam(*req.MaxResults, "MaxResults", "Must be between 1 and 10, if provided.")
		}
		max = int(*req.MaxResults)
	}
	tasks, err := s.MoveTasks(req.SourceArn, max)
	if err != nil {
		return nil, err
	}
	resp := listMoveResponse{Results: make([]moveTaskResult, 0, len(tasks))}
	for _, t := range tasks {
		r := moveTaskResult{
			ApproximateNumberOfMessagesMoved: t.ApproximateNumberOfMessagesMoved, ApproximateNumberOfMessagesToMove: t.ApproximateNumberOfMessagesToMove,
			DestinationArn: t.DestinationArn, FailureReason: t.FailureReason, SourceArn: t.SourceArn,
			StartedTimestamp: t.StartedTimestamp, Status: t.Status, TaskHandle: t.TaskHandle,
		}
		if t.MaxNumberOfMessagesPerSecond > 0 {
			rate := t.MaxNumberOfMessagesPerSecond
			r.MaxNumberOfMessagesPerSecond = &rate
		}
		resp.Results = append(resp.Results, r)
	}
	return resp, nil
}

type cancelMoveRequest struct {
	TaskHandle string `json:"TaskHandle"`
}

type cancelMoveResponse struct {
	ApproximateNumberOfMessagesMoved int64 `json:"ApproximateNumberOfMessagesMoved"`
}

func (s *Service) httpCancelMessageMoveTask(c *call) (any, error) {
	var req cancelMoveRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if req.TaskHandle == "" {
		return nil, errMissing("TaskHandle")
	}
	n, err := s.CancelMoveTask(req.TaskHandle)
	if err != nil {
		return nil, err
	}
	return cancelMoveResponse{n}, nil
}
