//! The work queue autoscale reads: a Storage queue in the account the template creates locked
//! down (shared keys and public network access disabled) reads its length through autoscale's
//! "special metric", which no Microsoft page says works then ([`crate::facts::autoscale::
//! STORAGE_QUEUE_LOCKED_DOWN`], an assumption, printed here until a source or a live test settles
//! it); the Service Bus path is the documented one.

use super::Context;
use crate::diag::Diagnostic;
use crate::facts::autoscale as facts;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let Some(q) = s
        .autoscale
        .as_ref()
        .and_then(|a| a.queue.as_ref())
        .and_then(|q| q.storage_queue.as_ref())
    else {
        return;
    };
    if !q.create {
        return;
    }
    let from_zero = if s.capacity.min == 0 {
        ": with `capacity.min: 0` the pool then never starts a VM"
    } else {
        ": the pool then never scales above its minimum"
    };
    out.push(
        Diagnostic::new(
            "autoscale-storage-queue-locked",
            format!(
                "ASSUMPTION: autoscale reads the length of {}/{} (its \"special metric\" {}) from a storage account gpuform creates with shared keys and public network access disabled; no Microsoft page says it can, and if it cannot, no scale-out rule fires{from_zero}",
                q.account,
                q.queue,
                facts::STORAGE_APPROXIMATE_MESSAGE_COUNT.metric
            ),
        )
        .at("/spec/autoscale/queue/storageQueue")
        .label("the queue-length metric of a locked-down account")
        .help("the documented path is a Service Bus queue (`autoscale.queue.serviceBus`: its ActiveMessages is a platform metric of the namespace); or check once after deploying: put a message in the queue and see the autoscale setting's run history (`az monitor autoscale show`, the Activity log's Autoscale events) scale out")
        .note(format!(
            "{} (read {})",
            facts::STORAGE_QUEUE_LOCKED_DOWN.what,
            facts::STORAGE_QUEUE_LOCKED_DOWN.read
        )),
    );
}
