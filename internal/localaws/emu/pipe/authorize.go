package pipe

import (
	"context"
	"fmt"

	"github.com/taskpipe/taskpipe/internal/localaws/emu"
)

// servicePrincipal is the principal Pipes assumes its roles as.
const servicePrincipal = "pipes.amazonaws.com"

// authorize checks one call the pipe makes as its role; nil Authorizer
// allows everything.
func (s *Service) authorize(ctx context.Context, cfg *config, action, resource string) error {
	if s.opts.Authorizer == nil {
		return nil
	}
	sess := emu.RoleSession{Service: servicePrincipal, Role: cfg.role, Source: cfg.arn}
	if err := s.opts.Authorizer.Authorize(ctx, sess, action, resource); err != nil {
		return fmt.Errorf("pipe %s: %w", cfg.name, err)
	}
	return nil
}

// canRead checks what a DynamoDB stream source needs
// (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-permissions.html:
// DescribeStream, GetRecords, GetShardIterator and ListStreams); the error
// is the first denial, in AWS's words.
func (s *Service) canRead(cfg *config) error {
	for _, action := range []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"} {
		if err := s.authorize(s.ctx, cfg, action, cfg.sourceARN); err != nil {
			return err
		}
	}
	return nil
}
