from enum import StrEnum

class SignatureEncoding(StrEnum):
    BASE64 = "base64"
    HEX = "hex"

    def __str__(self) -> str:
        return str(self.value)
