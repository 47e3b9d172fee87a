"""Drive the local CloudWatch with boto3, an independent client that speaks
AWS JSON 1.0 to it (botocore picks "json" from the model's protocols list),
and check what it gets back. Usage: python3 boto3_check.py <endpoint-url>
"""
import datetime
import json
import sys

import boto3
from botocore.exceptions import ClientError


def expect_error(fn, code, **kwargs):
    try:
        fn(**kwargs)
    except ClientError as e:
        got = e.response["Error"]["Code"]
        assert got == code, (got, code, e.response)
        return e
    raise AssertionError("expected %s" % code)


def main(endpoint):
    cw = boto3.client("cloudwatch", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id="AKIDBOTO", aws_secret_access_key="secret")
    proto = cw.meta.service_model.resolved_protocol if hasattr(cw.meta.service_model, "resolved_protocol") \
        else cw.meta.service_model.protocol
    assert proto == "json", proto

    cw.put_metric_alarm(
        AlarmName="boto-dlq", Namespace="AWS/SQS", MetricName="ApproximateNumberOfMessagesVisible",
        Dimensions=[{"Name": "QueueName", "Value": "boto-dlq"}], Statistic="Maximum", Period=60,
        EvaluationPeriods=1, DatapointsToAlarm=1, Threshold=1.0,
        ComparisonOperator="GreaterThanOrEqualToThreshold", TreatMissingData="notBreaching",
        AlarmActions=["arn:aws:sns:us-east-1:000000000000:alerts"])
    alarms = cw.describe_alarms(AlarmNames=["boto-dlq"])["MetricAlarms"]
    assert len(alarms) == 1, alarms
    a = alarms[0]
    assert a["StateValue"] == "INSUFFICIENT_DATA", a
    assert a["AlarmArn"] == "arn:aws:cloudwatch:us-east-1:000000000000:alarm:boto-dlq", a
    assert isinstance(a["StateUpdatedTimestamp"], datetime.datetime), a
    assert a["Dimensions"] == [{"Name": "QueueName", "Value": "boto-dlq"}], a

    cw.set_alarm_state(AlarmName="boto-dlq", StateValue="ALARM", StateReason="drill")
    assert cw.describe_alarms(StateValue="ALARM")["MetricAlarms"][0]["AlarmName"] == "boto-dlq"
    hist = cw.describe_alarm_history(AlarmName="boto-dlq", HistoryItemType="StateUpdate")["AlarmHistoryItems"]
    assert hist[0]["HistorySummary"] == "Alarm updated from INSUFFICIENT_DATA to ALARM", hist

    expect_error(cw.put_metric_alarm, "ValidationError", AlarmName="bad", Namespace="n", MetricName="m",
                 Statistic="Maximum", Period=45, EvaluationPeriods=1, Threshold=1.0,
                 ComparisonOperator="GreaterThanThreshold")
    expect_error(cw.set_alarm_state, "ResourceNotFound", AlarmName="ghost", StateValue="OK", StateReason="x")

    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    cw.put_metric_data(Namespace="boto", MetricData=[
        {"MetricName": "Latency", "Value": 10.0, "Unit": "Milliseconds", "Timestamp": now},
        {"MetricName": "Latency", "Values": [20.0, 30.0], "Counts": [1.0, 2.0], "Unit": "Milliseconds", "Timestamp": now},
    ])
    st = cw.get_metric_statistics(Namespace="boto", MetricName="Latency",
                                  StartTime=now - datetime.timedelta(minutes=5),
                                  EndTime=now + datetime.timedelta(minutes=5), Period=600,
                                  Statistics=["Sum", "SampleCount", "Maximum"])
    dps = st["Datapoints"]
    assert len(dps) == 1, dps
    assert dps[0]["Sum"] == 90.0 and dps[0]["SampleCount"] == 4.0 and dps[0]["Maximum"] == 30.0, dps
    expect_error(cw.put_metric_data, "InvalidParameterValue", Namespace="AWS/Custom",
                 MetricData=[{"MetricName": "m", "Value": 1.0}])

    body = json.dumps({"widgets": [{"type": "text", "properties": {"markdown": "hi"}}]})
    cw.put_dashboard(DashboardName="boto", DashboardBody=body)
    assert cw.get_dashboard(DashboardName="boto")["DashboardBody"] == body
    e = expect_error(cw.put_dashboard, "InvalidParameterInput", DashboardName="boto", DashboardBody="{}")
    assert e.response["Error"]["Message"].startswith("The field DashboardBody"), e.response
    expect_error(cw.get_dashboard, "ResourceNotFound", DashboardName="ghost")

    arn = a["AlarmArn"]
    cw.tag_resource(ResourceARN=arn, Tags=[{"Key": "team", "Value": "scrape"}])
    assert cw.list_tags_for_resource(ResourceARN=arn)["Tags"] == [{"Key": "team", "Value": "scrape"}]
    cw.delete_alarms(AlarmNames=["boto-dlq"])
    assert cw.describe_alarms()["MetricAlarms"] == []
    print("boto3 check ok: protocol", proto)


if __name__ == "__main__":
    main(sys.argv[1])
