//! What Azure's queue metrics count, and which VM a scale-in removes: the facts `simulate` models
//! autoscale with. Each names its source and the date it was read; where Microsoft does not
//! settle the question, the entry is an assumption, the engine takes the conservative reading by
//! default (the one that scales out later, so a tuned policy is not flattered), and the other
//! reading is a flag.

use super::Source;

/// What a queue-depth metric counts while a worker holds a message (received, not completed).
#[derive(Debug, Clone, Copy)]
pub struct QueueMetricFact {
    /// The metric name autoscale reads.
    pub metric: &'static str,
    /// Messages a worker has received and not yet completed (locked / invisible) are counted.
    pub counts_in_service: bool,
    pub source: Source,
}

/// Service Bus `ActiveMessages` (namespace metric) and the legacy per-queue
/// `ActiveMessageCount`: Microsoft's monitoring data reference describes active messages as the
/// messages in the active state, ready for delivery and available to be received; a message a
/// receiver holds under a peek-lock is not available to be received. The Azure SDK maintainers'
/// thread reads it the same way for locked (prefetched, in-process) messages.
pub const SERVICE_BUS_ACTIVE_MESSAGES: QueueMetricFact = QueueMetricFact {
    metric: "ActiveMessages",
    counts_in_service: false,
    source: Source::doc(
        "https://learn.microsoft.com/azure/service-bus-messaging/monitor-service-bus-reference \
         (MicrosoftDocs/azure-docs articles/service-bus-messaging/monitor-service-bus-reference.md\
         @fe3d7e1aa0f8e37f19985ebfb10de416abdca504, ms.date 2025-08-12, 'Message metrics': \
         Active Messages = messages in the active state, ready for delivery); \
         https://github.com/Azure/azure-sdk-for-js/issues/38988 (2026-06-18: messages locked in \
         the prefetch buffer are not counted in activeMessageCount)",
        "2026-12-03",
    ),
};

/// Storage queue `ApproximateMessageCount` (the autoscale special metric; REST
/// `x-ms-approximate-messages-count`): Microsoft documents it as "not lower than the actual
/// number of messages in the queue, but could be higher", and does not say whether a message
/// made invisible by a Get Messages call (a worker holds it) is part of that number. Assumption:
/// not counted, the conservative reading (it scales out later); `--queue-metric-counts-in-service`
/// takes the other. A third-party report (allantargino/ContainerNanny issue #8, 2018-05-09)
/// reads it as counting them.
pub const STORAGE_APPROXIMATE_MESSAGE_COUNT: QueueMetricFact = QueueMetricFact {
    metric: "ApproximateMessageCount",
    counts_in_service: false,
    source: Source::assumption(
        "https://learn.microsoft.com/rest/api/storageservices/get-queue-metadata and \
         https://learn.microsoft.com/dotnet/api/azure.storage.queues.models.queueproperties.approximatemessagescount \
         ('not lower than the actual number of messages in the queue, but could be higher') do \
         not say whether invisible (dequeued, not deleted) messages count; gpuform assumes they do \
         not (conservative), --queue-metric-counts-in-service assumes they do",
        "2026-12-03",
    ),
};

/// Autoscale reads a Storage queue's length as a "special metric" (`ApproximateMessageCount`,
/// empty metric namespace, the queue's URI as the resource: Learn, "Commonly used Storage
/// metrics", autoscale-common-metrics.md@0e35105e, excerpt `autoscale-queue-metrics.json`), not
/// from Azure Monitor's platform metrics of the account. The storage account gpuform creates
/// has `allowSharedKeyAccess: false` and `publicNetworkAccess: Disabled`; no Microsoft page says
/// whether autoscale can still read the queue's length then (searched: the autoscale common
/// metrics and settings pages, the storage account network security and shared-key pages). If
/// it cannot, a pool with `min: 0` never scales out. gpuform assumes it can and says so at
/// validate (`autoscale-storage-queue-locked`); Service Bus `ActiveMessages`
/// ([`SERVICE_BUS_ACTIVE_MESSAGES`]), a platform metric of the namespace, is the documented
/// path.
pub const STORAGE_QUEUE_LOCKED_DOWN: Source = Source::assumption(
    "no Microsoft page says autoscale can read a Storage queue's length (the special metric \
     ApproximateMessageCount, autoscale-common-metrics) from an account with shared keys and \
     public network access disabled; gpuform assumes it can (Service Bus ActiveMessages is the \
     documented path)",
    "2026-12-05",
);

/// The metric fact for an autoscale rule's metric name (`None`: not a queue-depth metric).
pub fn queue_metric(name: &str) -> Option<&'static QueueMetricFact> {
    match name {
        "ActiveMessages" | "ActiveMessageCount" => Some(&SERVICE_BUS_ACTIVE_MESSAGES),
        "ApproximateMessageCount" | "QueueMessageCount" => Some(&STORAGE_APPROXIMATE_MESSAGE_COUNT),
        _ => None,
    }
}

/// The rendered scale-in policy (`scaleInPolicy.rules: ["Default"]`) removes VMs in this order:
/// balance across availability zones (zonal scale sets), then across fault domains (best
/// effort), then delete the VM with the highest instance ID. Autoscale does not see which VM is
/// running a job: a busy VM is removed like an idle one and its job starts again elsewhere.
pub const SCALE_IN_DEFAULT_ORDER: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machine-scale-sets/virtual-machine-scale-sets-scale-in-policy \
     ('Default scale-in policy': balance across availability zones, balance across fault domains \
     (best effort), delete the VM with the highest instance ID); the Compute REST model's \
     ScaleInPolicy.rules 'Default' (https://learn.microsoft.com/javascript/api/@azure/arm-compute/scaleinpolicy: \
     'the virtual machines chosen for removal will be the newest ones that are not protected from scale-in')",
    "2026-12-03",
);

/// Azure Monitor metric collection delay: platform metrics reach autoscale after a delay that
/// Microsoft does not state for queue metrics. Assumption: 0 to 2 minutes; `--tune` tries both
/// ends.
pub const METRIC_DELAY_MINUTES: (u32, u32) = (0, 2);
pub const METRIC_DELAY: Source = Source::assumption(
    "no Microsoft figure for the delay between a queue change and the value autoscale reads; \
     gpuform models 0 (nominal) and 2 minutes (a --tune variant)",
    "2026-12-03",
);

/// Azure Monitor's limit on the profiles of one autoscale setting (the default profile
/// included): 20, the same as the maximum (it cannot be raised). Schedule learning (`simulate
/// --tune`) keeps its proposal inside it; validation refuses a spec that needs more.
pub const MAX_PROFILES_PER_SETTING: usize = 20;
pub const MAX_PROFILES_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/azure/azure-monitor/service-limits#autoscale \
     (MicrosoftDocs/azure-docs includes/azure-monitor-limits-autoscale.md\
     @18305c6aaafaba326545c3f26d2513f889e6b227: 'Autoscale profiles | 20 profiles per autoscale \
     setting. | Same as default'); the REST model (https://learn.microsoft.com/dotnet/api/\
     azure.resourcemanager.monitor.models.autoscalesettingpatch.profiles: 'A maximum of 20 \
     profiles can be specified.')",
    "2026-12-03",
);

/// The shape of a recurring profile (`recurrence`): `frequency` must be `Week` (every week has
/// the same profiles; a daily schedule lists every day), and `schedule` names a `timeZone`, the
/// `days`, and the `hours` (0-23, 24-hour clock) and `minutes` it starts at. A recurring
/// profile has no end: it holds until the next profile starts (why every schedule renders a
/// start and a restore profile).
pub const RECURRENCE_FREQUENCY: &str = "Week";
pub const RECURRENCE_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/dotnet/api/microsoft.azure.powershell.cmdlets.monitor.autoscale.\
     models.api20221001.autoscaleprofile.recurrencefrequency ('This value must be Week, meaning \
     each week will have the same set of profiles. For example, to set a daily schedule, set \
     schedule to every day of the week.'); https://learn.microsoft.com/powershell/module/\
     az.monitor/new-azautoscaleprofileobject (-ScheduleDay, -ScheduleHour, -ScheduleMinute, \
     -ScheduleTimeZone)",
    "2026-12-03",
);

/// How a metric rule combines the samples of its `timeWindow` (`metricTrigger.timeAggregation`):
/// Azure's autoscale REST model (2022-10-01) takes `Average` (its default), `Minimum`, `Maximum`,
/// `Total`, `Count` and `Last`. It is the autoscale engine's own aggregation over the window,
/// separate from the metric's `statistic` per time grain (the Service Bus `ActiveMessages`
/// metric supports `Average`, `Minimum` and `Maximum` per grain; the rules keep `Average`).
/// gpuform renders `Average` on every rule unless `autoscale.queue.scaleOutAggregation` asks for
/// `Maximum` or `Last` on the scale-out rules (they react to a backlog within a minute instead of
/// after the window's average has risen); scale-in keeps `Average`.
pub const TIME_AGGREGATIONS: [&str; 6] =
    ["Average", "Minimum", "Maximum", "Total", "Count", "Last"];
pub const TIME_AGGREGATION_DEFAULT: &str = "Average";
pub const TIME_AGGREGATION_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/dotnet/api/azure.resourcemanager.monitor.models.metrictrigger.timeaggregation \
     ('time aggregation type. How the data that is collected should be combined over time. The \
     default value is Average.'); https://learn.microsoft.com/python/api/azure-mgmt-monitor/\
     azure.mgmt.monitor.models.metrictrigger (time_aggregation: TimeAggregationType); the \
     values Average|Minimum|Maximum|Total|Count|Last as summarised from \
     Microsoft.Insights/autoscalesettings 2022-10-01 in gpuform's shared facts \
     (../shared/azure/facts.md, section 6 'Autoscale'); ActiveMessages aggregations \
     Average, Minimum, Maximum (MicrosoftDocs/azure-monitor-docs articles/azure-monitor/reference/\
     supported-metrics/microsoft-servicebus-namespaces-metrics.md@916560d562d293a317f8635fc64eb512366a1b32)",
    "2026-12-04",
);
