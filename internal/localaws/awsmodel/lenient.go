package awsmodel

// A Leniency is a model constraint AWS itself does not enforce: the model
// is stricter than the service, so enforcing it would reject requests AWS
// accepts. Each has its source.
type Leniency struct {
	Service, Shape, Member string
	Kinds                  []Kind
	Why                    string
}

// leniencies are applied when the model is loaded (Member.skip).
var leniencies = []Leniency{{
	Service: "sqs", Shape: "ReceiveMessageRequest", Member: "AttributeNames", Kinds: []Kind{KindEnum},
	Why: "the deprecated AttributeNames takes message system attribute names (SenderId, SentTimestamp, …) " +
		"as the ReceiveMessage API reference documents, while the model's QueueAttributeName enum lists only " +
		"queue attributes (https://github.com/aws/aws-sdk/issues/56)",
}}

// Leniencies lists the model constraints left unenforced, and why.
func Leniencies() []Leniency { return append([]Leniency(nil), leniencies...) }

type kindSet uint16

func (s kindSet) has(k Kind) bool { return s&(1<<k) != 0 }

func applyLeniencies(s *Service) {
	for _, l := range leniencies {
		if l.Service != s.Key {
			continue
		}
		sh := s.shapes[l.Shape]
		if sh == nil {
			continue
		}
		if m := sh.byName[l.Member]; m != nil {
			for _, k := range l.Kinds {
				m.skip |= 1 << k
			}
		}
	}
}
