from enum import StrEnum

class KafkaSaslType0Mechanism(StrEnum):
    PLAIN = "PLAIN"
    SCRAM_SHA_256 = "SCRAM-SHA-256"
    SCRAM_SHA_512 = "SCRAM-SHA-512"

    def __str__(self) -> str:
        return str(self.value)
