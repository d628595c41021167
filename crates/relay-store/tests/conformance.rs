//! Runs the conformance suite on SQLite (always) and PostgreSQL (when the
//! tests have one, see `relay_store::testenv`; `.ci/run` requires it).

macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let db = relay_store::conformance::TestDb::sqlite().await;
                    relay_store::conformance::$case(&*db.store).await;
                    db.cleanup().await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let Some(db) = relay_store::conformance::TestDb::postgres(stringify!($case)).await else {
                        return;
                    };
                    relay_store::conformance::$case(&*db.store).await;
                    db.cleanup().await;
                }
            )*
        }
    };
}

conformance!(
    a_filtered_message_list_reads_a_bounded_span_per_page,
    a_time_window_list_starts_at_the_window,
    workflow_steps_are_idempotent_by_key_and_reach_only_their_endpoint,
    concurrent_requests_with_one_step_key_make_one_step,
    ordered_messages_are_claimed_one_at_a_time_per_key_in_publish_order,
    every_way_a_head_ends_lets_the_next_of_its_key_go,
    pause_holds_only_heads_and_a_blocked_message_ends_without_its_turn,
    concurrent_publishes_of_one_key_keep_one_head_and_one_line,
    concurrent_claimers_never_hold_two_messages_of_one_key,
    recover_of_an_ordered_message_reenters_at_the_tail_of_its_key,
    an_endpoint_owing_the_proof_holds_its_messages_until_its_receiver_proves_it,
    a_move_to_an_origin_not_proven_holds_and_resume_or_enable_wait_for_the_proof,
    circuit_signals_from_several_nodes_fold_into_one_count,
    half_open_probes_are_granted_at_most_the_configured_number_across_nodes,
    expired_probe_permits_come_back,
    the_database_clock_is_the_servers_own,
    cluster_shares_split_a_limit_and_never_sum_over_it,
    cluster_shares_keep_what_is_in_flight_and_reclaim_expired_rows,
    expired_share_rows_of_a_crashed_node_are_purged,
    concurrent_renewals_of_many_keys_commit_without_deadlock,
    object_batches_are_recorded_while_their_leases_hold_and_leased_again_whole,
    held_members_are_not_leased_with_their_batch,
    migrations_are_idempotent,
    the_schema_is_checked_against_the_binary_and_destructive_steps_wait,
    a_master_key_rotation_reseals_everything_and_resumes_after_an_interruption,
    manual_attempts_are_audited_with_their_lease,
    relays_own_disables_are_audited_with_the_system_as_actor,
    messages_record_the_event_type_version_that_shaped_them,
    composed_operations_commit_or_roll_back_together,
    an_operation_awaiting_anything_but_its_connection_fails,
    settings_keep_the_first_value,
    tenants_and_sub_tenants,
    api_keys_are_found_by_hash_until_revoked,
    event_types_version_on_schema_change,
    lists_come_a_bounded_page_at_a_time,
    endpoint_versions_are_kept_and_messages_record_theirs,
    consumers_are_unique_per_tenant_and_environment,
    endpoints_enforce_limits_and_scope,
    publish_fans_out_to_matching_endpoints_only,
    publish_and_replay_give_each_endpoint_what_the_audience_rule_allows,
    publishes_lease_what_the_intake_has_room_for,
    publishes_behind_a_backlog_lease_its_oldest_messages_in_order,
    publishing_the_same_id_is_idempotent,
    events_keep_the_time_they_happened,
    concurrent_publishes_of_one_id_create_one_event,
    concurrent_publishes_commit_together_and_fail_alone,
    seq_is_monotonic_per_subject,
    paused_and_disabled_endpoints_get_held_messages,
    deleting_an_endpoint_dead_letters_its_pending_messages,
    updating_subscriptions_changes_the_fan_out,
    messages_filter_and_paginate_by_keyset,
    claims_lease_due_messages_with_their_delivery_context,
    concurrent_claimers_never_share_a_message,
    completion_applies_only_while_the_lease_holds,
    completions_batch_in_one_call_and_keep_retry_state,
    attempt_error_kinds_read_back_as_written,
    a_410_disables_the_endpoint_and_holds_its_other_messages,
    released_leases_are_due_again_at_once,
    signing_keys_are_stored_with_the_endpoint,
    key_rotation_retires_old_keys_and_is_audited,
    pausing_holds_and_resuming_releases_in_due_order,
    an_endpoint_change_applies_only_from_the_state_it_was_decided_from,
    completions_rescues_and_releases_land_held_while_paused_or_disabled,
    a_manual_lease_refuses_expired_events_and_deleted_endpoints,
    cancelling_ends_pending_attempts_and_beats_a_late_completion,
    purge_keeps_events_whose_messages_are_live,
    a_disabled_endpoints_held_messages_go_with_retention,
    a_completion_whose_message_is_gone_is_skipped_and_the_rest_commit,
    a_bulk_retry_restarts_nothing_whose_event_is_outside_retention,
    a_tenant_has_at_most_one_tenant_consumer_per_environment,
    portal_tokens_are_found_by_hash_within_their_scope,
    portal_tokens_are_revoked_one_or_all_of_a_consumer,
    portal_brands_are_kept_per_tenant_and_inherited,
    tenant_secrets_are_sealed_replaced_listed_and_deleted,
    a_secret_change_commits_with_its_audit_entry,
    inbound_sources_keep_secret_references_and_are_audited,
    an_audit_entry_commits_with_its_change_or_not_at_all,
    an_endpoint_update_applies_only_at_the_revision_read,
    recover_restarts_failed_and_unattempted_messages_in_range,
    a_recover_works_in_chunks_and_restarts_each_message_once,
    recover_and_bulk_retry_leave_a_message_under_a_manual_attempt_alone,
    a_replay_works_in_chunks_and_resumes_where_it_stopped,
    a_manual_lease_excludes_automatic_attempts_and_vice_versa,
    at_most_one_attempt_runs_under_an_automatic_attempt,
    at_most_one_attempt_runs_under_a_manual_resend,
    at_most_one_attempt_runs_under_a_resend_of_a_held_message,
    at_most_one_attempt_runs_under_a_test_send,
    a_cancelled_attempts_lease_lapses_and_frees_the_message,
    racing_paths_give_each_message_to_one_attempt,
    replay_delivers_retained_events_to_an_endpoint_once,
    purge_removes_old_events_with_their_messages_in_batches,
    waiting_messages_expire_when_their_ttl_passes,
    bulk_retry_jobs_advance_by_cursor_and_resume_after_a_lost_worker,
    claims_skip_full_lanes_and_released_claims_are_due_again,
    claims_take_at_most_each_endpoints_room,
    claims_look_past_full_and_capped_endpoints_backlogs,
    health_facts_summarise_attempts_and_backlog,
    the_backlog_counts_waiting_messages_and_their_oldest,
    latency_histogram_rows_merge_within_and_across_batches,
    a_claim_reports_when_the_next_message_is_due,
    live_messages_are_claimed_before_recovery_traffic,
    recovery_traffic_is_shared_fairly_across_tenants,
    the_failure_clock_warns_at_72_hours_and_disables_at_5_days,
    one_success_resets_the_failure_clock,
    operational_events_reach_subscribers_without_cascading,
    seeded_messages_read_like_published_ones,
    a_seeded_history_has_its_attempts_and_its_sizes,
    inbound_sources_are_scoped_and_keep_their_secret_sealed,
    a_repeated_provider_event_is_one_receipt_counted,
    receipts_are_leased_and_written_to_the_ledger_once,
    a_receipt_whose_leases_keep_expiring_is_left_failed,
    rejected_receipts_are_kept_newest_first_per_source,
    the_ledger_pages_by_keyset_and_filters_within_its_tenant,
    receipts_complete_in_a_batch_each_under_its_own_lease,
);
