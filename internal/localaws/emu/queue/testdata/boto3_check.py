"""Drive the local SQS with boto3, an independent client, and check what it
gets back. Usage: python3 boto3_check.py <endpoint-url>

boto3/botocore do not validate SQS MD5 digests themselves, so this script
does: the body digest with hashlib, the attribute digest with its own
implementation of the documented encoding, cross-checked against the
AWS-recorded vector adb59cd4678ea5a855436b949cd07ab6.
"""
import hashlib
import json
import struct
import sys

import boto3
from botocore.exceptions import ClientError


def md5_of_attributes(attrs):
    h = hashlib.md5()
    for name in sorted(attrs):
        a = attrs[name]
        for part in (name, a["DataType"]):
            raw = part.encode("utf-8")
            h.update(struct.pack(">I", len(raw)) + raw)
        if a["DataType"].startswith("Binary"):
            raw = a["BinaryValue"]
            h.update(b"\x02" + struct.pack(">I", len(raw)) + raw)
        else:
            raw = a["StringValue"].encode("utf-8")
            h.update(b"\x01" + struct.pack(">I", len(raw)) + raw)
    return h.hexdigest()


def main(endpoint):
    sqs = boto3.client("sqs", endpoint_url=endpoint, region_name="us-east-1",
                       aws_access_key_id="AKIDBOTO", aws_secret_access_key="secret")
    assert sqs.meta.service_model.protocol == "json", sqs.meta.service_model.protocol

    dlq_url = sqs.create_queue(QueueName="boto-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    url = sqs.create_queue(QueueName="boto", Attributes={
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1}),
    })["QueueUrl"]
    assert url == endpoint + "/000000000000/boto", url

    attrs = {"MyAttribute": {"DataType": "String", "StringValue": "foobar"}}
    sent = sqs.send_message(QueueUrl=url, MessageBody="message-1", MessageAttributes=attrs, DelaySeconds=0)
    assert sent["MD5OfMessageBody"] == hashlib.md5(b"message-1").hexdigest(), sent
    assert sent["MD5OfMessageAttributes"] == md5_of_attributes(attrs) == "adb59cd4678ea5a855436b949cd07ab6", sent

    binary = {"blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xfe\xff"}}
    sent_bin = sqs.send_message(QueueUrl=dlq_url, MessageBody="binary", MessageAttributes=binary)
    assert sent_bin["MD5OfMessageAttributes"] == md5_of_attributes(binary), sent_bin

    # VisibilityTimeout=0, which the Go SDK cannot send: visible again at once.
    first = sqs.receive_message(QueueUrl=url, VisibilityTimeout=0, MessageAttributeNames=["All"],
                                MessageSystemAttributeNames=["All"])["Messages"][0]
    assert first["MD5OfBody"] == hashlib.md5(first["Body"].encode()).hexdigest()
    assert first["MD5OfMessageAttributes"] == md5_of_attributes(first["MessageAttributes"])
    assert first["Attributes"]["ApproximateReceiveCount"] == "1", first["Attributes"]
    assert first["Attributes"]["SenderId"] == "AKIDBOTO", first["Attributes"]

    # maxReceiveCount 1: the next receive moves it to the DLQ instead.
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    moved = sqs.receive_message(QueueUrl=dlq_url, MaxNumberOfMessages=10, AttributeNames=["All"],
                                MessageAttributeNames=["All"])["Messages"]
    by_body = {m["Body"]: m for m in moved}
    assert by_body["message-1"]["MessageId"] == sent["MessageId"]
    assert by_body["message-1"]["Attributes"]["DeadLetterQueueSourceArn"].endswith(":boto")
    assert by_body["message-1"]["Attributes"]["ApproximateReceiveCount"] == "2"
    assert by_body["binary"]["MessageAttributes"]["blob"]["BinaryValue"] == b"\x00\x01\xfe\xff"
    for m in moved:
        sqs.delete_message(QueueUrl=dlq_url, ReceiptHandle=m["ReceiptHandle"])

    batch = sqs.send_message_batch(QueueUrl=url, Entries=[
        {"Id": "ok", "MessageBody": "fine"},
        {"Id": "bad", "MessageBody": "\x01"},
    ])
    assert [s["Id"] for s in batch["Successful"]] == ["ok"], batch
    assert batch["Failed"][0]["Code"] == "InvalidMessageContents", batch

    try:
        sqs.get_queue_url(QueueName="missing")
        raise AssertionError("no error for a missing queue")
    except ClientError as e:
        err = e.response["Error"]
        assert err["Code"] == "AWS.SimpleQueueService.NonExistentQueue", err
        assert err.get("QueryErrorCode") == "QueueDoesNotExist", err
        assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 400

    try:
        sqs.purge_queue(QueueUrl=url)
        sqs.purge_queue(QueueUrl=url)
        raise AssertionError("no error for a second purge")
    except ClientError as e:
        assert e.response["Error"]["Code"] == "AWS.SimpleQueueService.PurgeQueueInProgress", e.response
        assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 403

    print("boto3 check ok", boto3.__version__)


if __name__ == "__main__":
    main(sys.argv[1])
