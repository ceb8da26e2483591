//! `gpuform cost`: the monthly bill of a spec's scaling policy.
//!
//! - [`usage`]: instance-hours per profile over one UTC week, in three cases, split regular/spot;
//! - [`fixed`]: the dated prices of disks, NAT gateway, public IP, private endpoints, Log
//!   Analytics, Key Vault, Service Bus and storage queues;
//! - [`retail`] / [`fetch`]: Retail Prices API documents (`--prices`) and the live API
//!   (`--refresh-prices`, the only network code);
//! - [`levers`]: what spot, reservations, a narrower precision and the scale-down schedules are
//!   worth; [`gates`]: budget and baseline checks; [`format`]: table, markdown and JSON.

mod book;
pub mod clock;
pub mod command;
mod currency;
mod estimate;
pub mod fetch;
pub mod fixed;
pub mod format;
pub mod gates;
pub mod levers;
mod lines;
pub mod model;
pub mod money;
pub mod prices;
pub mod retail;
pub mod serving;
pub mod sovereign;
pub mod standby;
pub mod usage;

pub use book::{Overlay, PriceBook, Priced};
pub use estimate::estimate;
pub use model::*;
