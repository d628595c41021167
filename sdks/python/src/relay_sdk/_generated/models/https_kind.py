from enum import StrEnum

class HttpsKind(StrEnum):
    HTTPS = "https"

    def __str__(self) -> str:
        return str(self.value)
