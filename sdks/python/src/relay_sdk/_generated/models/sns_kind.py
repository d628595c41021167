from enum import StrEnum

class SnsKind(StrEnum):
    SNS = "sns"

    def __str__(self) -> str:
        return str(self.value)
