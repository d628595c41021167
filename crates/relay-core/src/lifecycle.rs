//! An endpoint's lifecycle: every change of an endpoint's state, whoever
//! asks for it (the tenant's pause, resume, disable and enable, a `410`
//! answer, the five-day automatic disable), is decided here, once.
//!
//! [`decide`] takes the endpoint's current state and the action and gives
//! the new state, what happens to the endpoint's messages and which
//! operational event is emitted, or an [`IllegalTransition`] with a stable
//! code. The store applies a [`Change`] with a conditional update (only
//! while the endpoint is still in [`Change::from`]), so two changes that race
//! cannot both apply.
//!
//! | from | action | to | messages | event |
//! |---|---|---|---|---|
//! | active | pause | paused | hold | — |
//! | paused | resume | active | release | — |
//! | active, paused | disable | disabled (`disabled_by_tenant`) | hold | `webhook_endpoint.disabled` |
//! | active, paused | a `410` | disabled (`endpoint_returned_410`) | hold | `webhook_endpoint.disabled` |
//! | active | failing for 5 days | disabled (`failing_for_5_days`) | hold | `webhook_endpoint.disabled` |
//! | disabled | enable | active | none: held messages stay held, listed as missed, until `recover` | `webhook_endpoint.recovered` |
//! | unverified | pause | paused | hold | — |
//! | unverified | disable | disabled (`disabled_by_tenant`) | hold | `webhook_endpoint.disabled` |
//! | active | its URL moves to a host not proven | unverified | hold | — |
//! | unverified | its receiver proves ownership | active | release | — |
//!
//! Every other pair is illegal. A change that would make an endpoint
//! `active` while its receiver still owes the ownership proof (resume,
//! enable) lands `unverified` instead, releasing nothing: [`without_proof`]. Enable releases nothing on purpose: a
//! disabled endpoint may have days of held messages, and releasing them as
//! live traffic would flood the endpoint that just came back; `recover`
//! queues them as recovery traffic (paced, fair across tenants).
//!
//! While an endpoint is not active, a message that would become deliverable
//! again (a completion that schedules a retry, a rescued or released lease)
//! is held instead: [`settle`].

use crate::model::{EndpointState, MessageState};
use crate::operational;

/// What is asked of an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointAction {
    /// The tenant pauses deliveries (`POST /v1/endpoints/{id}/pause`).
    Pause,
    /// The tenant resumes a paused endpoint.
    Resume,
    /// The tenant disables the endpoint.
    Disable,
    /// The tenant enables a disabled endpoint.
    Enable,
    /// The endpoint answered `410 Gone`.
    Gone,
    /// Every attempt has failed for five days (`crate::autodisable`).
    FailingForFiveDays,
    /// Its URL now names a host whose receiver has not proven that it
    /// wants the traffic (`docs/security.md`).
    ProofNeeded,
    /// Its receiver answered the ownership challenge.
    Proven,
}

impl EndpointAction {
    pub const fn as_str(self) -> &'static str {
        match self {
            EndpointAction::Pause => "pause",
            EndpointAction::Resume => "resume",
            EndpointAction::Disable => "disable",
            EndpointAction::Enable => "enable",
            EndpointAction::Gone => "disable (410)",
            EndpointAction::FailingForFiveDays => "automatic disable",
            EndpointAction::ProofNeeded => "a move to a host not proven",
            EndpointAction::Proven => "the ownership proof",
        }
    }

    /// The states the action applies to.
    pub const fn applies_to(self) -> &'static [EndpointState] {
        use EndpointState::*;
        match self {
            EndpointAction::FailingForFiveDays | EndpointAction::ProofNeeded => &[Active],
            EndpointAction::Pause => &[Active, Unverified],
            EndpointAction::Resume => &[Paused],
            EndpointAction::Disable => &[Active, Paused, Unverified],
            EndpointAction::Gone => &[Active, Paused],
            EndpointAction::Enable => &[Disabled],
            EndpointAction::Proven => &[Unverified],
        }
    }
}

/// `disabled_reason` of a tenant's disable.
pub const REASON_DISABLED_BY_TENANT: &str = "disabled_by_tenant";
/// `disabled_reason` of a `410` answer.
pub const REASON_RETURNED_410: &str = "endpoint_returned_410";
/// `disabled_reason` of the automatic disable.
pub const REASON_FAILING_FOR_5_DAYS: &str = "failing_for_5_days";

/// What happens to the endpoint's messages with a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Messages {
    /// Scheduled messages become `held`: no new attempt starts.
    Hold,
    /// Held messages become `scheduled` again, due in their order, as live
    /// traffic.
    Release,
    /// Nothing moves.
    None,
}

/// A legal change of an endpoint's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    /// The state the change applies to: the store changes the endpoint only
    /// while it is still in this state.
    pub from: EndpointState,
    pub to: EndpointState,
    /// `disabled_reason` afterwards (`None` clears it).
    pub disabled_reason: Option<&'static str>,
    pub messages: Messages,
    /// The operational event emitted (`crate::operational`), if any.
    pub event: Option<&'static str>,
}

/// An action that does not apply to the endpoint's current state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IllegalTransition {
    pub from: EndpointState,
    pub action: EndpointAction,
}

impl IllegalTransition {
    /// The stable problem code.
    pub const CODE: &'static str = "invalid_endpoint_state";

    pub fn message(&self) -> String {
        format!(
            "the endpoint is {}; {} applies to {} endpoints",
            self.from.as_str(),
            self.action.as_str(),
            self.action
                .applies_to()
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" or ")
        )
    }
}

impl std::fmt::Display for IllegalTransition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for IllegalTransition {}

/// The change `action` makes to an endpoint in state `from`.
pub fn decide(from: EndpointState, action: EndpointAction) -> Result<Change, IllegalTransition> {
    use EndpointState::*;
    if !action.applies_to().contains(&from) {
        return Err(IllegalTransition { from, action });
    }
    let disabled = |reason| Change {
        from,
        to: Disabled,
        disabled_reason: Some(reason),
        messages: Messages::Hold,
        event: Some(operational::ENDPOINT_DISABLED),
    };
    Ok(match action {
        EndpointAction::Pause => Change {
            from,
            to: Paused,
            disabled_reason: None,
            messages: Messages::Hold,
            event: None,
        },
        EndpointAction::Resume => Change {
            from,
            to: Active,
            disabled_reason: None,
            messages: Messages::Release,
            event: None,
        },
        EndpointAction::Disable => disabled(REASON_DISABLED_BY_TENANT),
        EndpointAction::Gone => disabled(REASON_RETURNED_410),
        EndpointAction::FailingForFiveDays => disabled(REASON_FAILING_FOR_5_DAYS),
        EndpointAction::Enable => Change {
            from,
            to: Active,
            disabled_reason: None,
            messages: Messages::None,
            event: Some(operational::ENDPOINT_RECOVERED),
        },
        EndpointAction::ProofNeeded => Change {
            from,
            to: Unverified,
            disabled_reason: None,
            messages: Messages::Hold,
            event: None,
        },
        EndpointAction::Proven => Change {
            from,
            to: Active,
            disabled_reason: None,
            messages: Messages::Release,
            event: None,
        },
    })
}

/// `change` for an endpoint whose receiver still owes the ownership proof:
/// one that would make it `active` (resume, enable) makes it `unverified`
/// instead and releases nothing (its messages stay held until the proof);
/// any other change is unchanged. The store applies it in the change's
/// transaction, where it reads whether the proof is owed.
pub const fn without_proof(change: Change) -> Change {
    match change.to {
        EndpointState::Active => Change {
            to: EndpointState::Unverified,
            messages: Messages::None,
            ..change
        },
        _ => change,
    }
}

/// The state a message lands in when it would become `next` while its
/// endpoint is `endpoint`: a message that would be deliverable again
/// (`scheduled`) is `held` unless the endpoint is active. Completions,
/// rescued leases and given-back leases all land through this rule.
pub const fn settle(endpoint: EndpointState, next: MessageState) -> MessageState {
    match (endpoint, next) {
        (
            EndpointState::Paused | EndpointState::Disabled | EndpointState::Unverified,
            MessageState::Scheduled,
        ) => MessageState::Held,
        (_, next) => next,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use EndpointAction::*;
    use EndpointState::*;

    const ACTIONS: [EndpointAction; 8] = [
        Pause,
        Resume,
        Disable,
        Enable,
        Gone,
        FailingForFiveDays,
        ProofNeeded,
        Proven,
    ];
    const STATES: [EndpointState; 4] = [Active, Paused, Disabled, Unverified];

    #[test]
    fn every_state_and_action_has_one_answer() {
        type Row = (
            EndpointState,
            EndpointAction,
            Option<(
                EndpointState,
                Option<&'static str>,
                Messages,
                Option<&'static str>,
            )>,
        );
        let dis = Some(operational::ENDPOINT_DISABLED);
        let rec = Some(operational::ENDPOINT_RECOVERED);
        let by_tenant = Some(REASON_DISABLED_BY_TENANT);
        let gone = Some(REASON_RETURNED_410);
        let failing = Some(REASON_FAILING_FOR_5_DAYS);
        let table: [Row; 32] = [
            (Active, Pause, Some((Paused, None, Messages::Hold, None))),
            (Paused, Pause, None),
            (Disabled, Pause, None),
            (
                Unverified,
                Pause,
                Some((Paused, None, Messages::Hold, None)),
            ),
            // Resume and enable of an endpoint that owes the proof land
            // `unverified` (`without_proof`), from `paused` and `disabled`.
            (Unverified, Resume, None),
            (
                Unverified,
                Disable,
                Some((Disabled, by_tenant, Messages::Hold, dis)),
            ),
            (Unverified, Enable, None),
            // Never delivered to, so never a `410` nor five days of failure.
            (Unverified, Gone, None),
            (Unverified, FailingForFiveDays, None),
            (
                Active,
                ProofNeeded,
                Some((Unverified, None, Messages::Hold, None)),
            ),
            // Paused and disabled endpoints owe it at resume or enable.
            (Paused, ProofNeeded, None),
            (Disabled, ProofNeeded, None),
            (Unverified, ProofNeeded, None),
            (
                Unverified,
                Proven,
                Some((Active, None, Messages::Release, None)),
            ),
            (Active, Proven, None),
            (Paused, Proven, None),
            (Disabled, Proven, None),
            (Active, Resume, None),
            (
                Paused,
                Resume,
                Some((Active, None, Messages::Release, None)),
            ),
            (Disabled, Resume, None),
            (
                Active,
                Disable,
                Some((Disabled, by_tenant, Messages::Hold, dis)),
            ),
            (
                Paused,
                Disable,
                Some((Disabled, by_tenant, Messages::Hold, dis)),
            ),
            (Disabled, Disable, None),
            (Active, Enable, None),
            (Paused, Enable, None),
            // Enable does not flood: held messages wait for `recover`.
            (Disabled, Enable, Some((Active, None, Messages::None, rec))),
            (Active, Gone, Some((Disabled, gone, Messages::Hold, dis))),
            (Paused, Gone, Some((Disabled, gone, Messages::Hold, dis))),
            // Disabled once: the event is not emitted twice.
            (Disabled, Gone, None),
            (
                Active,
                FailingForFiveDays,
                Some((Disabled, failing, Messages::Hold, dis)),
            ),
            (Paused, FailingForFiveDays, None),
            (Disabled, FailingForFiveDays, None),
        ];
        for (from, action, want) in table {
            let got = decide(from, action);
            match want {
                Some((to, reason, messages, event)) => assert_eq!(
                    got,
                    Ok(Change {
                        from,
                        to,
                        disabled_reason: reason,
                        messages,
                        event
                    }),
                    "{from:?} {action:?}"
                ),
                None => {
                    let e = got.expect_err(&format!("{from:?} {action:?}"));
                    assert_eq!(e, IllegalTransition { from, action });
                    assert_eq!(IllegalTransition::CODE, "invalid_endpoint_state");
                    assert!(e.message().contains(from.as_str()), "{}", e.message());
                }
            }
        }
        // The table is complete.
        for from in STATES {
            for action in ACTIONS {
                assert!(
                    table.iter().any(|(f, a, _)| *f == from && *a == action),
                    "{from:?} {action:?}"
                );
            }
        }
    }

    #[test]
    fn only_an_active_endpoint_makes_messages_deliverable_again() {
        use MessageState as M;
        let table = [
            (Active, M::Scheduled, M::Scheduled),
            (Paused, M::Scheduled, M::Held),
            (Disabled, M::Scheduled, M::Held),
            (Paused, M::Delivered, M::Delivered),
            (Disabled, M::Exhausted, M::Exhausted),
            (Paused, M::FailedPermanent, M::FailedPermanent),
            (Active, M::Held, M::Held),
            (Unverified, M::Scheduled, M::Held),
            (Unverified, M::Cancelled, M::Cancelled),
        ];
        for (endpoint, next, want) in table {
            assert_eq!(settle(endpoint, next), want, "{endpoint:?} {next:?}");
        }
    }

    #[test]
    fn an_endpoint_that_owes_the_proof_is_never_made_active() {
        for from in STATES {
            for action in ACTIONS {
                let Ok(change) = decide(from, action) else {
                    continue;
                };
                let owed = without_proof(change);
                assert_ne!(owed.to, Active, "{from:?} {action:?}");
                assert_ne!(owed.messages, Messages::Release, "{from:?} {action:?}");
                if change.to != Active {
                    assert_eq!(owed, change, "{from:?} {action:?}");
                }
            }
        }
        let resumed = without_proof(decide(Paused, Resume).unwrap());
        assert_eq!((resumed.to, resumed.messages), (Unverified, Messages::None));
        let enabled = without_proof(decide(Disabled, Enable).unwrap());
        assert_eq!(
            (enabled.to, enabled.event),
            (Unverified, Some(operational::ENDPOINT_RECOVERED))
        );
    }
}
