// Package schedule is the local cloud's Amazon EventBridge Scheduler: the
// REST-JSON API the SDKs, the CLI and Terraform's aws_scheduler_schedule
// use (schedules, schedule groups, tags), and a timer that invokes each
// schedule's Lambda target asynchronously when it comes due.
//
// Register it in the router under emu.ServiceScheduler and mount its
// admin handler (fire a schedule now, read its counters):
//
//	sched := schedule.New(schedule.Options{Invoker: invoker, Queues: sqs})
//	router.Handle(emu.ServiceScheduler, sched)
//	cloud.HandleAdmin(emu.AdminPrefix+"schedules/", sched.AdminHandler())
//	defer sched.Close()
//
// # What is emulated
//
// Facts and sources: the Scheduler user guide (schedule-types.html), the
// API reference, AWS-recorded responses in LocalStack's
// tests/aws/services/scheduler snapshots, and docs/aws-behaviour.md §6.1; each
// rule cites its source next to the code.
//
//   - Expressions: rate(value minute|minutes|hour|hours|day|days) (the
//     singular and plural units are interchangeable, as AWS accepts
//     "rate(2 minute)"); cron(minutes hours day-of-month month
//     day-of-week year) with *, ?, ranges, lists, steps, names, L, LW, nW,
//     nL and n#k; at(yyyy-mm-ddThh:mm:ss). Invalid ones are the recorded
//     ValidationException "Invalid Schedule Expression <expr>.".
//   - ScheduleExpressionTimezone (IANA names, default UTC) with AWS's
//     daylight saving rules: wall times skipped in spring do not fire,
//     repeated ones fire once, and rate days are 24 hours.
//   - StartDate/EndDate (occurrences ≥ start, < end; ignored by one-time
//     schedules), State, FlexibleTimeWindow (validated; the local cloud
//     fires at the start of the window), ActionAfterCompletion DELETE
//     (a schedule with no occurrence left is deleted after its last
//     delivery), the response defaults AWS reports (UTC, NONE, RetryPolicy
//     86400 s / 185 attempts).
//   - Delivery: Lambda targets only, invoked asynchronously (InvocationType
//     Event) with Target.Input, whose context attributes
//     <aws.scheduler.schedule-arn>, <aws.scheduler.scheduled-time>,
//     <aws.scheduler.execution-id> and <aws.scheduler.attempt-number> are
//     filled in. Refused deliveries are retried per RetryPolicy and then
//     sent to the DeadLetterConfig queue (when Options.Queues is set).
//   - A rate schedule without StartDate fires at once, then every period
//     ("your schedule starts invoking the target immediately").
//   - Schedule groups (the default group always exists; deleting a group
//     deletes its schedules) and their tags; paging with MaxResults and
//     NextToken.
//
// # Time
//
// Every rule reads Options.Clock. With a *ManualClock, tests and demos
// advance time and the timer fires exactly the occurrences that came due,
// each with its own scheduled time, oldest first; occurrences older than
// the target's MaximumEventAgeInSeconds when the clock jumps past them
// are skipped (Scheduler would have given up on them). AWS fires within
// the minute ("60 second precision"); the local cloud fires on the
// scheduled second.
//
// # Choices where AWS is vague (UNCONFIRMED)
//
//   - The payload of a target without Input: AWS documents only "a default
//     notification"; the local cloud sends {}.
//   - A one-time schedule created for a time already past fires at once
//     if the event is younger than MaximumEventAgeInSeconds.
//   - Messages of errors AWS was not recorded returning (conflicts,
//     unknown groups, time zones, windows) are the emulator's.
//   - Retries back off 1 s doubling to 1 min; the dead-letter message body
//     is the undelivered input, its attributes name the error, the
//     exhausted condition, the retry count, the schedule and the target.
//
// # Not emulated
//
// Targets other than Lambda functions (templated SQS, SNS, Step Functions
// and universal targets are refused with a clear ValidationException),
// KMS encryption (KmsKeyArn is stored and echoed), the jitter of flexible
// windows, IAM (RoleArn is validated, never assumed), L-n day offsets,
// wrapping ranges and W or L inside lists in cron fields.
package schedule
