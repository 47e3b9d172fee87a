variable "name" {
  description = "Name of <the> thing."
  type        = string
}

variable "patterns" {
  description = "JSON patterns | pipes."
  type        = list(string)
  default     = ["{\"a\":1}"]
}

variable "statements" {
  description = "Statements."
  type = list(object({
    sid     = string
    actions = optional(list(string), [])
  }))
  default = []
}

variable "untyped" {
  default = null
}
