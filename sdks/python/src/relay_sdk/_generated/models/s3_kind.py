from enum import StrEnum

class S3Kind(StrEnum):
    S3 = "s3"

    def __str__(self) -> str:
        return str(self.value)
