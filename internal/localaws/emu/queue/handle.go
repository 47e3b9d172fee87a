package queue

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// Receipt handles are opaque to clients. Ours are the base64 of
// "<queue ARN> <message id> <receive number> <nonce>", so a handle names its
// queue and its receive: a handle from another queue or a garbled one is
// ReceiptHandleIsInvalid, and an older handle of a re-received message is
// recognisably stale (docs/aws-behaviour.md §3.6).
type receipt struct {
	queueARN  string
	messageID string
	receiveNo int
}

func encodeReceipt(r receipt, nonce uint64) string {
	raw := r.queueARN + " " + r.messageID + " " + strconv.Itoa(r.receiveNo) + " " + strconv.FormatUint(nonce, 36)
	return base64.StdEncoding.EncodeToString([]byte(raw))
}

func decodeReceipt(handle string) (receipt, bool) {
	raw, err := base64.StdEncoding.DecodeString(handle)
	if err != nil {
		return receipt{}, false
	}
	parts := strings.Split(string(raw), " ")
	if len(parts) != 4 || parts[1] == "" {
		return receipt{}, false
	}
	if _, _, _, ok := parseARN(parts[0]); !ok {
		return receipt{}, false
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 1 {
		return receipt{}, false
	}
	if _, err := strconv.ParseUint(parts[3], 36, 64); err != nil {
		return receipt{}, false
	}
	return receipt{queueARN: parts[0], messageID: parts[1], receiveNo: n}, true
}

// Move-task handles are base64-encoded JSON {"taskId":…,"sourceArn":…}: the
// format the AWS-validated LocalStack test test_cancel_with_invalid_task_id_in_task_handle
// hands to real SQS, which answers "Task does not exist." for it.
type taskHandle struct {
	TaskID    string `json:"taskId"`
	SourceArn string `json:"sourceArn"`
}

func encodeTaskHandle(h taskHandle) string {
	return base64.StdEncoding.EncodeToString([]byte(canonicalJSON(h)))
}

func decodeTaskHandle(s string) (taskHandle, bool) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return taskHandle{}, false
	}
	var h taskHandle
	if err := json.Unmarshal(raw, &h); err != nil || h.TaskID == "" || h.SourceArn == "" {
		return taskHandle{}, false
	}
	return h, true
}

// parseARN splits "arn:<partition>:sqs:<region>:<account>:<name>".
func parseARN(arn string) (region, account, name string, ok bool) {
	parts := strings.Split(arn, ":")
	if len(parts) != 6 || parts[0] != "arn" || parts[1] == "" || parts[2] != "sqs" ||
		parts[3] == "" || parts[4] == "" || parts[5] == "" {
		return "", "", "", false
	}
	return parts[3], parts[4], parts[5], true
}
