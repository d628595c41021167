use relay_sdk::api::MessagesListQuery;
use relay_sdk::types::{
    Consumer, CreateConsumer, CreateEndpoint, Message, MintPortalToken, PortalTokenCreated,
    PublishEvent, Published, PutEventTypeBody,
};
use relay_sdk::verify::Verifier;
use relay_sdk::{Client, Error, Problem};
use serde_json::json;

/// What the quickstart made.
pub struct Quickstart {
    pub relay: Client,
    pub verifier: Verifier,
    pub consumer: Consumer,
    pub event: Published,
    pub messages: Vec<Message>,
    pub token: PortalTokenCreated,
    pub refusal: Problem,
}

pub async fn quickstart(
    api_key: &str,
    relay_url: &str,
    webhook_url: &str,
) -> Result<Quickstart, Box<dyn std::error::Error>> {
    let relay = Client::builder(relay_url, api_key).build()?;

    // An event type, a consumer (your customer) and their HTTPS endpoint.
    let schema = json!({
        "type": "object", "required": ["id", "total"],
        "properties": { "id": { "type": "string" }, "total": { "type": "integer" } },
    });
    let order_paid = PutEventTypeBody {
        schema,
        ..Default::default()
    };
    relay.event_types().put("order.paid", &order_paid).await?;
    let consumer = relay
        .consumers()
        .create(&CreateConsumer {
            external_id: "acme-shop".into(),
            name: Some("Acme Shop".into()),
            ..Default::default()
        })
        .await?;
    let endpoint = relay
        .endpoints()
        .create(&CreateEndpoint {
            consumer_id: consumer.id.clone(),
            destination: json!({ "kind": "https", "url": webhook_url }),
            event_types: vec!["order.paid".into()],
            ..Default::default()
        })
        .await?;
    // The receiver verifies each delivery with the endpoint's public key.
    let verifier = Verifier::new(endpoint.public_key.as_deref())?;

    // Publish: the SDK picks the event's id (its idempotency key) and keeps
    // it across retries, so a retried publish never delivers twice.
    let event = relay
        .events()
        .publish(PublishEvent {
            r#type: "order.paid".into(),
            data: json!({ "id": "o_1042", "total": 4200 }),
            consumer_id: Some(consumer.id.clone()),
            ..Default::default()
        })
        .await?;

    // Every list is a pager: pages are fetched as you go.
    let query = MessagesListQuery {
        event_id: Some(event.id.clone()),
        ..Default::default()
    };
    let mut pager = relay.messages().list(&query);
    let mut messages = Vec::new();
    while let Some(message) = pager.next().await {
        let message = message?;
        println!("{} {}", message.id, message.state);
        messages.push(message);
    }

    // A portal link for the customer to manage their own endpoints (a
    // secret: `expose()` it only where it is meant to be shown).
    let mint = MintPortalToken {
        consumer_id: consumer.id.clone(),
        lifetime_seconds: Some(3600),
        ..Default::default()
    };
    let token = relay.portal_tokens().create(&mint).await?;
    println!("{}", token.url.expose());

    // Refusals are typed errors carrying Relay's code, the fields at fault
    // and the request id.
    let refused = relay
        .events()
        .publish(PublishEvent {
            r#type: "order.paid".into(),
            data: json!({ "id": "o_1043" }),
            consumer_id: Some(consumer.id.clone()),
            ..Default::default()
        })
        .await;
    let refusal = match refused {
        Err(Error::Problem(problem)) if problem.is_validation() => *problem,
        other => return Err(format!("expected a 422, got {other:?}").into()),
    };
    let fields: Vec<&str> = refusal.errors.iter().map(|e| e.field.as_str()).collect();
    println!(
        "{} {} {fields:?} {:?}",
        refusal.status, refusal.code, refusal.request_id
    );

    Ok(Quickstart {
        relay,
        verifier,
        consumer,
        event,
        messages,
        token,
        refusal,
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let env = |name: &str| std::env::var(name).map_err(|_| format!("{name} is not set"));
    quickstart(
        &env("RELAY_API_KEY")?,
        &env("RELAY_URL")?,
        &env("WEBHOOK_URL")?,
    )
    .await?;
    Ok(())
}
