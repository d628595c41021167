from enum import StrEnum

class Preset(StrEnum):
    GENERIC_HMAC = "generic_hmac"
    GITHUB = "github"
    MAILGUN = "mailgun"
    SENDGRID = "sendgrid"
    STANDARD_WEBHOOKS = "standard_webhooks"
    STRIPE = "stripe"
    TWILIO = "twilio"

    def __str__(self) -> str:
        return str(self.value)
