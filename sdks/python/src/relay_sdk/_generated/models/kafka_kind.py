from enum import StrEnum

class KafkaKind(StrEnum):
    KAFKA = "kafka"

    def __str__(self) -> str:
        return str(self.value)
