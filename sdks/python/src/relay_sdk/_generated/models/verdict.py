from enum import StrEnum

class Verdict(StrEnum):
    REJECTED = "rejected"
    VERIFIED = "verified"

    def __str__(self) -> str:
        return str(self.value)
