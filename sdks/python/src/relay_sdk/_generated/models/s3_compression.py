from enum import StrEnum

class S3Compression(StrEnum):
    GZIP = "gzip"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
