from enum import StrEnum

class RabbitmqKind(StrEnum):
    RABBITMQ = "rabbitmq"

    def __str__(self) -> str:
        return str(self.value)
