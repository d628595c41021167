""" Contains all the data models used in inputs/outputs """

from .api_key import ApiKey
from .api_key_created import ApiKeyCreated
from .attempt import Attempt
from .attempt_detail import AttemptDetail
from .attempt_outcome import AttemptOutcome
from .attempt_trigger import AttemptTrigger
from .audience import Audience
from .audit_entry import AuditEntry
from .audit_entry_parameters import AuditEntryParameters
from .aws_external_id import AwsExternalId
from .azure_service_bus import AzureServiceBus
from .azure_service_bus_auth import AzureServiceBusAuth
from .azure_service_bus_auth_entra import AzureServiceBusAuthEntra
from .azure_service_bus_auth_sas import AzureServiceBusAuthSas
from .azure_service_bus_content_mode import AzureServiceBusContentMode
from .azure_service_bus_kind import AzureServiceBusKind
from .backlog import Backlog
from .body_encoding import BodyEncoding
from .bulk_retry import BulkRetry
from .capability import Capability
from .circuit_type_0 import CircuitType0
from .circuit_type_0_state import CircuitType0State
from .circuit_type_1 import CircuitType1
from .circuit_type_1_state import CircuitType1State
from .circuit_type_2 import CircuitType2
from .circuit_type_2_state import CircuitType2State
from .cloud_event import CloudEvent
from .cloud_event_datacontenttype import CloudEventDatacontenttype
from .cloud_event_environment import CloudEventEnvironment
from .cloud_event_specversion import CloudEventSpecversion
from .consumer import Consumer
from .consumer_kind import ConsumerKind
from .create_api_key import CreateApiKey
from .create_consumer import CreateConsumer
from .create_endpoint import CreateEndpoint
from .create_endpoint_event_type_versions import CreateEndpointEventTypeVersions
from .create_inbound_source import CreateInboundSource
from .create_tenant import CreateTenant
from .create_workflow_step import CreateWorkflowStep
from .delivery_order import DeliveryOrder
from .enable_body import EnableBody
from .enabled import Enabled
from .endpoint import Endpoint
from .endpoint_created import EndpointCreated
from .endpoint_event_type_versions import EndpointEventTypeVersions
from .endpoint_out import EndpointOut
from .endpoint_state import EndpointState
from .endpoint_version import EndpointVersion
from .endpoint_version_event_type_versions import EndpointVersionEventTypeVersions
from .environment import Environment
from .event import Event
from .event_data import EventData
from .event_type import EventType
from .event_type_out import EventTypeOut
from .event_type_version import EventTypeVersion
from .event_type_version_sample_type_0 import EventTypeVersionSampleType0
from .event_type_version_schema_type_0 import EventTypeVersionSchemaType0
from .event_with_messages import EventWithMessages
from .eventbridge import Eventbridge
from .eventbridge_kind import EventbridgeKind
from .failure import Failure
from .field_error import FieldError
from .generic_options import GenericOptions
from .health import Health
from .hmac_algorithm import HmacAlgorithm
from .https import Https
from .https_a2a_push_type_0 import HttpsA2APushType0
from .https_a2a_push_type_0_authentication_type_0 import HttpsA2APushType0AuthenticationType0
from .https_auth_type_0 import HttpsAuthType0
from .https_auth_type_0_client_certificate_type_0 import HttpsAuthType0ClientCertificateType0
from .https_auth_type_0_oauth_2_type_0 import HttpsAuthType0Oauth2Type0
from .https_auth_type_0_oauth_2_type_0_method import HttpsAuthType0Oauth2Type0Method
from .https_headers_item import HttpsHeadersItem
from .https_kind import HttpsKind
from .inbound_source import InboundSource
from .job import Job
from .job_kind import JobKind
from .job_parameters import JobParameters
from .job_state import JobState
from .kafka import Kafka
from .kafka_bootstrap_item import KafkaBootstrapItem
from .kafka_content_mode import KafkaContentMode
from .kafka_kind import KafkaKind
from .kafka_sasl_type_0 import KafkaSaslType0
from .kafka_sasl_type_0_mechanism import KafkaSaslType0Mechanism
from .key_rotated import KeyRotated
from .latency import Latency
from .ledger_entry import LedgerEntry
from .message import Message
from .message_state import MessageState
from .mint_portal_token import MintPortalToken
from .mqtt import Mqtt
from .mqtt_content_mode import MqttContentMode
from .mqtt_kind import MqttKind
from .mqtt_protocol_version import MqttProtocolVersion
from .nats_jetstream import NatsJetstream
from .nats_jetstream_content_mode import NatsJetstreamContentMode
from .nats_jetstream_kind import NatsJetstreamKind
from .options import Options
from .ownership import Ownership
from .page_api_key import PageApiKey
from .page_attempt import PageAttempt
from .page_audit_entry import PageAuditEntry
from .page_consumer import PageConsumer
from .page_endpoint_out import PageEndpointOut
from .page_endpoint_version import PageEndpointVersion
from .page_event_type import PageEventType
from .page_inbound_source import PageInboundSource
from .page_ledger_entry import PageLedgerEntry
from .page_message import PageMessage
from .page_receipt import PageReceipt
from .page_secret_info import PageSecretInfo
from .page_signing_key_out import PageSigningKeyOut
from .page_tenant import PageTenant
from .portal_brand import PortalBrand
from .portal_brand_out import PortalBrandOut
from .portal_create_endpoint import PortalCreateEndpoint
from .portal_event import PortalEvent
from .portal_event_data import PortalEventData
from .portal_message import PortalMessage
from .portal_session import PortalSession
from .portal_token_created import PortalTokenCreated
from .portal_token_out import PortalTokenOut
from .portal_update_endpoint import PortalUpdateEndpoint
from .preset import Preset
from .problem import Problem
from .publish_event import PublishEvent
from .publish_event_data import PublishEventData
from .published import Published
from .pubsub import Pubsub
from .pubsub_content_mode import PubsubContentMode
from .pubsub_kind import PubsubKind
from .put_event_type_body import PutEventTypeBody
from .put_event_type_body_sample_type_0 import PutEventTypeBodySampleType0
from .put_event_type_body_schema_type_0 import PutEventTypeBodySchemaType0
from .put_secret_body import PutSecretBody
from .rabbitmq import Rabbitmq
from .rabbitmq_content_mode import RabbitmqContentMode
from .rabbitmq_kind import RabbitmqKind
from .receipt import Receipt
from .receipt_headers import ReceiptHeaders
from .receipt_state import ReceiptState
from .recent_error import RecentError
from .recover_body import RecoverBody
from .recovered import Recovered
from .redis_stream import RedisStream
from .redis_stream_content_mode import RedisStreamContentMode
from .redis_stream_kind import RedisStreamKind
from .redis_stream_wait_aof_type_0 import RedisStreamWaitAofType0
from .replay_body import ReplayBody
from .replayed import Replayed
from .resent import Resent
from .revoke_all import RevokeAll
from .revoked_all import RevokedAll
from .rotate_inbound_secret import RotateInboundSecret
from .rotate_key import RotateKey
from .s3 import S3
from .s3_addressing import S3Addressing
from .s3_batch import S3Batch
from .s3_compression import S3Compression
from .s3_kind import S3Kind
from .secret_info import SecretInfo
from .signature_encoding import SignatureEncoding
from .signature_scheme import SignatureScheme
from .signing_key_out import SigningKeyOut
from .sns import Sns
from .sns_content_mode import SnsContentMode
from .sns_kind import SnsKind
from .source_secret import SourceSecret
from .sqs import Sqs
from .sqs_content_mode import SqsContentMode
from .sqs_kind import SqsKind
from .step_event import StepEvent
from .step_event_data import StepEventData
from .system_event import SystemEvent
from .system_event_data import SystemEventData
from .tenant import Tenant
from .test_send import TestSend
from .test_sent import TestSent
from .theme import Theme
from .update_consumer import UpdateConsumer
from .update_endpoint import UpdateEndpoint
from .update_endpoint_event_type_versions_type_0 import UpdateEndpointEventTypeVersionsType0
from .update_inbound_source import UpdateInboundSource
from .verdict import Verdict
from .warning import Warning_
from .workflow_step import WorkflowStep

__all__ = (
    "ApiKey",
    "ApiKeyCreated",
    "Attempt",
    "AttemptDetail",
    "AttemptOutcome",
    "AttemptTrigger",
    "Audience",
    "AuditEntry",
    "AuditEntryParameters",
    "AwsExternalId",
    "AzureServiceBus",
    "AzureServiceBusAuth",
    "AzureServiceBusAuthEntra",
    "AzureServiceBusAuthSas",
    "AzureServiceBusContentMode",
    "AzureServiceBusKind",
    "Backlog",
    "BodyEncoding",
    "BulkRetry",
    "Capability",
    "CircuitType0",
    "CircuitType0State",
    "CircuitType1",
    "CircuitType1State",
    "CircuitType2",
    "CircuitType2State",
    "CloudEvent",
    "CloudEventDatacontenttype",
    "CloudEventEnvironment",
    "CloudEventSpecversion",
    "Consumer",
    "ConsumerKind",
    "CreateApiKey",
    "CreateConsumer",
    "CreateEndpoint",
    "CreateEndpointEventTypeVersions",
    "CreateInboundSource",
    "CreateTenant",
    "CreateWorkflowStep",
    "DeliveryOrder",
    "EnableBody",
    "Enabled",
    "Endpoint",
    "EndpointCreated",
    "EndpointEventTypeVersions",
    "EndpointOut",
    "EndpointState",
    "EndpointVersion",
    "EndpointVersionEventTypeVersions",
    "Environment",
    "Event",
    "Eventbridge",
    "EventbridgeKind",
    "EventData",
    "EventType",
    "EventTypeOut",
    "EventTypeVersion",
    "EventTypeVersionSampleType0",
    "EventTypeVersionSchemaType0",
    "EventWithMessages",
    "Failure",
    "FieldError",
    "GenericOptions",
    "Health",
    "HmacAlgorithm",
    "Https",
    "HttpsA2APushType0",
    "HttpsA2APushType0AuthenticationType0",
    "HttpsAuthType0",
    "HttpsAuthType0ClientCertificateType0",
    "HttpsAuthType0Oauth2Type0",
    "HttpsAuthType0Oauth2Type0Method",
    "HttpsHeadersItem",
    "HttpsKind",
    "InboundSource",
    "Job",
    "JobKind",
    "JobParameters",
    "JobState",
    "Kafka",
    "KafkaBootstrapItem",
    "KafkaContentMode",
    "KafkaKind",
    "KafkaSaslType0",
    "KafkaSaslType0Mechanism",
    "KeyRotated",
    "Latency",
    "LedgerEntry",
    "Message",
    "MessageState",
    "MintPortalToken",
    "Mqtt",
    "MqttContentMode",
    "MqttKind",
    "MqttProtocolVersion",
    "NatsJetstream",
    "NatsJetstreamContentMode",
    "NatsJetstreamKind",
    "Options",
    "Ownership",
    "PageApiKey",
    "PageAttempt",
    "PageAuditEntry",
    "PageConsumer",
    "PageEndpointOut",
    "PageEndpointVersion",
    "PageEventType",
    "PageInboundSource",
    "PageLedgerEntry",
    "PageMessage",
    "PageReceipt",
    "PageSecretInfo",
    "PageSigningKeyOut",
    "PageTenant",
    "PortalBrand",
    "PortalBrandOut",
    "PortalCreateEndpoint",
    "PortalEvent",
    "PortalEventData",
    "PortalMessage",
    "PortalSession",
    "PortalTokenCreated",
    "PortalTokenOut",
    "PortalUpdateEndpoint",
    "Preset",
    "Problem",
    "Published",
    "PublishEvent",
    "PublishEventData",
    "Pubsub",
    "PubsubContentMode",
    "PubsubKind",
    "PutEventTypeBody",
    "PutEventTypeBodySampleType0",
    "PutEventTypeBodySchemaType0",
    "PutSecretBody",
    "Rabbitmq",
    "RabbitmqContentMode",
    "RabbitmqKind",
    "Receipt",
    "ReceiptHeaders",
    "ReceiptState",
    "RecentError",
    "RecoverBody",
    "Recovered",
    "RedisStream",
    "RedisStreamContentMode",
    "RedisStreamKind",
    "RedisStreamWaitAofType0",
    "ReplayBody",
    "Replayed",
    "Resent",
    "RevokeAll",
    "RevokedAll",
    "RotateInboundSecret",
    "RotateKey",
    "S3",
    "S3Addressing",
    "S3Batch",
    "S3Compression",
    "S3Kind",
    "SecretInfo",
    "SignatureEncoding",
    "SignatureScheme",
    "SigningKeyOut",
    "Sns",
    "SnsContentMode",
    "SnsKind",
    "SourceSecret",
    "Sqs",
    "SqsContentMode",
    "SqsKind",
    "StepEvent",
    "StepEventData",
    "SystemEvent",
    "SystemEventData",
    "Tenant",
    "TestSend",
    "TestSent",
    "Theme",
    "UpdateConsumer",
    "UpdateEndpoint",
    "UpdateEndpointEventTypeVersionsType0",
    "UpdateInboundSource",
    "Verdict",
    "Warning_",
    "WorkflowStep",
)
