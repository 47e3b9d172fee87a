# s3_bucket is RequiredWith s3_key.
resource "aws_lambda_function" "scraper" {
  function_name = "scraper"
  role          = "arn:aws:iam::000000000000:role/scraper"
  handler       = "bootstrap"
  runtime       = "provided.al2023"
  s3_bucket     = "artifacts"
}
