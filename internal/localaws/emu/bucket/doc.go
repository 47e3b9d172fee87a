// Package bucket is the local cloud's Amazon S3: buckets and objects in
// memory, served over S3's REST/XML protocol to the AWS SDKs, the AWS CLI
// and Terraform. The object store is github.com/johannesboyne/gofakes3 (its
// s3mem backend), not hand-written: it implements the bucket and object
// calls (CreateBucket, HeadBucket, ListObjectsV2, PutObject, GetObject,
// HeadObject, DeleteObject, versioning, multipart uploads).
//
// What this package adds around it:
//
//   - the bucket configuration sub-resources gofakes3 does not serve
//     (?policy, ?encryption, ?publicAccessBlock, ?lifecycle, ?tagging,
//     ?ownershipControls), kept per bucket as the XML or JSON the client
//     sent, because the Terraform resources aws_s3_bucket_* write and read
//     them back. GetBucketEncryption answers SSE-S3 when nothing was set:
//     every bucket has had SSE-S3 default encryption since January 2023
//     (https://docs.aws.amazon.com/AmazonS3/latest/userguide/default-encryption-faq.html);
//   - virtual-hosted requests (Host <bucket>.localhost or
//     <bucket>.s3.localhost) besides path-style ones
//     (https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html);
//   - the operation name for the router's request counters
//     (emu.SetOperation) and the AWS model check of every request
//     (awsmodel.CheckHTTP), so a request the real S3 would reject as
//     malformed is rejected here too;
//   - Usage, the object count and bytes of a bucket, for the demo.
//
// Bucket policies are stored, not enforced: the local cloud enforces no
// IAM, and a TLS-only policy (aws:SecureTransport) could not be honoured
// on its plain-HTTP endpoint anyway.
//
// Register it in the router under emu.ServiceS3:
//
//	s3 := bucket.New(bucket.Options{})
//	router.Handle(emu.ServiceS3, s3)
package bucket
