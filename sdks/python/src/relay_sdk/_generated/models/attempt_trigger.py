from enum import StrEnum

class AttemptTrigger(StrEnum):
    MANUAL = "manual"
    PROBE = "probe"
    SCHEDULED = "scheduled"

    def __str__(self) -> str:
        return str(self.value)
