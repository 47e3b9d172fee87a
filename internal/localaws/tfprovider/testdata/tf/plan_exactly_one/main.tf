# No code source: filename, image_uri and s3_bucket are ExactlyOneOf.
resource "aws_lambda_function" "scraper" {
  function_name = "scraper"
  role          = "arn:aws:iam::000000000000:role/scraper"
  handler       = "bootstrap"
  runtime       = "provided.al2023"
}
