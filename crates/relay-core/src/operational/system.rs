//! The event families a system publisher (the operator credential)
//! publishes for a tenant: the reference's table, one entry per type.
//!
//! Every type carries the related ids as thin fields (`notification_id`,
//! `delivery_id`, `recipient_external_id`, `workflow_key`, `sub_tenant`,
//! and `rule_id` where a rule decided), so a thin endpoint learns what
//! happened and to which notification, and fetches the rest; addresses,
//! phone numbers and device tokens are personal data.

use serde_json::{Map, Value, json};

use super::Definition;

/// One system event type.
#[derive(Debug)]
pub struct SystemType {
    pub name: &'static str,
    /// The reference's family.
    pub family: &'static str,
    pub description: &'static str,
    /// Properties beside the common ids: `(name, schema)`.
    properties: fn() -> Value,
    /// Thin fields beside the common ids.
    thin: &'static [&'static str],
    personal: &'static [&'static str],
    /// The sample's own members beside the common ids.
    sample: fn() -> Value,
}

/// The ids every system event carries, always thin.
const COMMON: [&str; 5] = [
    "notification_id",
    "delivery_id",
    "recipient_external_id",
    "workflow_key",
    "sub_tenant",
];

fn recipient() -> Value {
    json!({"type": "object", "properties": {
        "email": {"type": "string"}, "phone": {"type": "string"}}})
}

pub const ALL: &[SystemType] = &[
    SystemType {
        name: "delivery.status_changed",
        family: "delivery projection",
        description: "A delivery moved from one status to another (queued, sent, delivered, failed, …)",
        properties: || {
            json!({"channel": {"type": "string"}, "from_status": {"type": ["string", "null"]},
                   "to_status": {"type": "string"}, "recipient": recipient()})
        },
        thin: &["/channel", "/from_status", "/to_status"],
        personal: &["/recipient/email", "/recipient/phone"],
        sample: || {
            json!({"channel": "email", "from_status": "sent", "to_status": "delivered",
                   "recipient": {"email": "ann@example.com"}})
        },
    },
    SystemType {
        name: "notification.suppressed",
        family: "skip and failure",
        description: "A notification was not sent: a rule suppressed it",
        properties: || json!({"reason": {"type": "string"}, "rule_id": {"type": "string"}}),
        thin: &["/reason", "/rule_id"],
        personal: &[],
        sample: || json!({"reason": "quiet_hours", "rule_id": "rule_7"}),
    },
    SystemType {
        name: "notification.render_failed",
        family: "skip and failure",
        description: "A notification's template could not be rendered",
        properties: || json!({"template_key": {"type": "string"}, "error": {"type": "string"}}),
        thin: &["/template_key"],
        personal: &[],
        sample: || json!({"template_key": "order-receipt", "error": "missing variable `total`"}),
    },
    SystemType {
        name: "message.seen",
        family: "engagement",
        description: "A recipient saw a message (in an inbox or feed)",
        properties: || json!({"channel": {"type": "string"}}),
        thin: &["/channel"],
        personal: &[],
        sample: || json!({"channel": "in_app"}),
    },
    SystemType {
        name: "message.read",
        family: "engagement",
        description: "A recipient read (opened) a message",
        properties: || json!({"channel": {"type": "string"}, "by_bot": {"type": "boolean"}}),
        thin: &["/channel", "/by_bot"],
        personal: &[],
        sample: || json!({"channel": "email", "by_bot": false}),
    },
    SystemType {
        name: "message.clicked",
        family: "engagement",
        description: "A link in a message was clicked, by a human or a bot",
        properties: || {
            json!({"channel": {"type": "string"}, "link_id": {"type": "string"},
                   "url": {"type": "string"}, "by_bot": {"type": "boolean"}})
        },
        thin: &["/channel", "/link_id", "/by_bot"],
        personal: &["/url"],
        sample: || {
            json!({"channel": "email", "link_id": "lnk_2", "url": "https://shop.example/o/1?u=ann",
                   "by_bot": false})
        },
    },
    SystemType {
        name: "message.archived",
        family: "engagement",
        description: "A recipient archived a message",
        properties: || json!({"channel": {"type": "string"}}),
        thin: &["/channel"],
        personal: &[],
        sample: || json!({"channel": "in_app"}),
    },
    SystemType {
        name: "email.bounced",
        family: "email feedback",
        description: "An email bounced (hard or soft)",
        properties: || {
            json!({"bounce_type": {"type": "string", "enum": ["hard", "soft"]},
                   "diagnostic": {"type": "string"}, "recipient": recipient()})
        },
        thin: &["/bounce_type"],
        personal: &["/recipient/email", "/diagnostic"],
        sample: || {
            json!({"bounce_type": "hard", "diagnostic": "550 5.1.1 ann@example.com: user unknown",
                   "recipient": {"email": "ann@example.com"}})
        },
    },
    SystemType {
        name: "email.complained",
        family: "email feedback",
        description: "A recipient marked an email as spam",
        properties: || json!({"feedback_type": {"type": "string"}, "recipient": recipient()}),
        thin: &["/feedback_type"],
        personal: &["/recipient/email"],
        sample: || json!({"feedback_type": "abuse", "recipient": {"email": "ann@example.com"}}),
    },
    SystemType {
        name: "consent.rejected",
        family: "consent and compliance",
        description: "A consent registry (İYS) rejected sending to a recipient",
        properties: || {
            json!({"registry": {"type": "string"}, "reason": {"type": "string"},
                   "recipient": recipient()})
        },
        thin: &["/registry", "/reason"],
        personal: &["/recipient/email", "/recipient/phone"],
        sample: || json!({"registry": "iys", "reason": "no_consent", "recipient": {"phone": "+905550000000"}}),
    },
    SystemType {
        name: "subscription.unsubscribed",
        family: "consent and compliance",
        description: "A recipient unsubscribed (one-click unsubscribe)",
        properties: || {
            json!({"method": {"type": "string"}, "list_id": {"type": "string"},
                   "recipient": recipient()})
        },
        thin: &["/method", "/list_id"],
        personal: &["/recipient/email"],
        sample: || json!({"method": "one_click", "list_id": "news", "recipient": {"email": "ann@example.com"}}),
    },
    SystemType {
        name: "sms.opt_out_received",
        family: "consent and compliance",
        description: "A recipient opted out of SMS with a keyword",
        properties: || json!({"keyword": {"type": "string"}, "recipient": recipient()}),
        thin: &["/keyword"],
        personal: &["/recipient/phone"],
        sample: || json!({"keyword": "STOP", "recipient": {"phone": "+15550000000"}}),
    },
    SystemType {
        name: "device.invalidated",
        family: "subscriber, device, preference",
        description: "A push provider reported a device token invalid",
        properties: || {
            json!({"device_id": {"type": "string"}, "platform": {"type": "string"},
                   "reason": {"type": "string"}, "token": {"type": "string"}})
        },
        thin: &["/device_id", "/platform", "/reason"],
        personal: &["/token"],
        sample: || json!({"device_id": "dev_3", "platform": "apns", "reason": "unregistered", "token": "a1b2c3"}),
    },
    SystemType {
        name: "preference.changed",
        family: "subscriber, device, preference",
        description: "A recipient changed a notification preference",
        properties: || {
            json!({"category": {"type": "string"}, "channel": {"type": "string"},
                   "enabled": {"type": "boolean"}})
        },
        thin: &["/category", "/channel", "/enabled"],
        personal: &[],
        sample: || json!({"category": "marketing", "channel": "email", "enabled": false}),
    },
    SystemType {
        name: "quota.threshold_reached",
        family: "quota and limits",
        description: "A quota reached a threshold",
        properties: || {
            json!({"quota": {"type": "string"}, "threshold_percent": {"type": "integer"},
                   "used": {"type": "integer"}, "limit": {"type": "integer"}})
        },
        thin: &["/quota", "/threshold_percent", "/used", "/limit"],
        personal: &[],
        sample: || json!({"quota": "sms_per_month", "threshold_percent": 80, "used": 8000, "limit": 10000}),
    },
    SystemType {
        name: "waitpoint.expired",
        family: "waitpoints and agents",
        description: "A workflow's waitpoint expired before it was completed",
        properties: || json!({"waitpoint_id": {"type": "string"}, "workflow_run_id": {"type": "string"}}),
        thin: &["/waitpoint_id", "/workflow_run_id"],
        personal: &[],
        sample: || json!({"waitpoint_id": "wp_4", "workflow_run_id": "run_8"}),
    },
];

/// The system type named `name`.
pub fn get(name: &str) -> Option<&'static SystemType> {
    ALL.iter().find(|t| t.name == name)
}

impl SystemType {
    pub fn definition(&self) -> Definition {
        let mut properties = Map::new();
        for id in COMMON {
            properties.insert(id.into(), json!({"type": "string"}));
        }
        if let Value::Object(own) = (self.properties)() {
            properties.extend(own);
        }
        let mut sample = Map::new();
        sample.insert("notification_id".into(), json!("ntf_1"));
        sample.insert("delivery_id".into(), json!("dlv_1"));
        sample.insert("recipient_external_id".into(), json!("user_42"));
        sample.insert("workflow_key".into(), json!("order-updates"));
        if let Value::Object(own) = (self.sample)() {
            sample.extend(own);
        }
        Definition {
            description: self.description,
            schema: json!({"type": "object", "properties": properties}),
            sample: Value::Object(sample),
            thin_fields: COMMON
                .iter()
                .map(|id| format!("/{id}"))
                .chain(self.thin.iter().map(|f| f.to_string()))
                .collect(),
            personal_data_fields: self.personal.iter().map(|f| f.to_string()).collect(),
        }
    }
}
