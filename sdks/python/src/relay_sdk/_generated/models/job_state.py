from enum import StrEnum

class JobState(StrEnum):
    DONE = "done"
    QUEUED = "queued"
    RUNNING = "running"

    def __str__(self) -> str:
        return str(self.value)
