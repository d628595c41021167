from enum import StrEnum

class NatsJetstreamKind(StrEnum):
    NATS_JETSTREAM = "nats_jetstream"

    def __str__(self) -> str:
        return str(self.value)
