"""Mail by SMTP: the settings every service that mails shares (the matcher's digests, the query service's account
mail), and sending one message with them."""

import smtplib
from email.message import EmailMessage

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings


class SmtpSettings(BaseSettings):
    """The SMTP settings, mixed into the settings class of each service that sends mail."""

    smtp_host: str | None = Field(None, description="SMTP server for digest and account mail; unset: no mail is sent")
    smtp_port: int = Field(587, ge=1, le=65535, description="SMTP port")
    smtp_from: str = Field("PaperTrail <papertrail@localhost>", description="From address of the mail sent")
    smtp_username: str | None = Field(None, description="SMTP login, if the server needs one")
    smtp_password: SecretStr | None = Field(None, description="SMTP password")
    smtp_starttls: bool = Field(False, description="upgrade the SMTP connection with STARTTLS")
    smtp_timeout_s: float = Field(30, gt=0, description="SMTP timeout")

    @field_validator("smtp_from")
    @classmethod
    def _has_address(cls, value: str) -> str:
        if "@" not in value:
            raise ValueError("must be an e-mail address, e.g. PaperTrail <digest@example.org>")
        return value


def send_mail(settings: SmtpSettings, message: EmailMessage) -> None:
    """Send one message (From set here) through the configured server; blocking, so run it in a thread.
    OSError or smtplib.SMTPException when it could not be sent."""
    assert settings.smtp_host is not None, "send_mail needs SMTP_HOST"
    message["From"] = settings.smtp_from
    with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=settings.smtp_timeout_s) as smtp:
        if settings.smtp_starttls:
            smtp.starttls()
        if settings.smtp_username and settings.smtp_password:
            smtp.login(settings.smtp_username, settings.smtp_password.get_secret_value())
        smtp.send_message(message)
