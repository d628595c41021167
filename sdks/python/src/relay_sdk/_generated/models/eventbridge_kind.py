from enum import StrEnum

class EventbridgeKind(StrEnum):
    EVENTBRIDGE = "eventbridge"

    def __str__(self) -> str:
        return str(self.value)
