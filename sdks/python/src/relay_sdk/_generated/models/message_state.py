from enum import StrEnum

class MessageState(StrEnum):
    BLOCKED = "blocked"
    CANCELLED = "cancelled"
    DEAD_LETTERED = "dead_lettered"
    DELIVERED = "delivered"
    EXHAUSTED = "exhausted"
    EXPIRED = "expired"
    FAILED_PERMANENT = "failed_permanent"
    HELD = "held"
    IN_FLIGHT = "in_flight"
    SCHEDULED = "scheduled"
    WINDOW_EXCEEDED = "window_exceeded"

    def __str__(self) -> str:
        return str(self.value)
