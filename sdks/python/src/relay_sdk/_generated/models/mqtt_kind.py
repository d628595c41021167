from enum import StrEnum

class MqttKind(StrEnum):
    MQTT = "mqtt"

    def __str__(self) -> str:
        return str(self.value)
