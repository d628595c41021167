from enum import StrEnum

class RedisStreamKind(StrEnum):
    REDIS_STREAM = "redis_stream"

    def __str__(self) -> str:
        return str(self.value)
