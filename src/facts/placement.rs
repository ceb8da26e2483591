//! Where a resource must live relative to the virtual network it joins: the NIC of every VM,
//! a private endpoint, and a route table associated with a subnet must be in the virtual
//! network's subscription and region. A landing-zone spec that joins a subnet elsewhere can
//! never deploy.

use super::Source;

/// Learn, "Create, change, or delete a network interface": "You can assign a network
/// interface only to a virtual network in the same subscription and location as the network
/// interface. [...] The VM you add the network interface to must also be in the same location
/// and subscription as the network interface."
pub const NIC: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-network/virtual-network-network-interface \
     (MicrosoftDocs/azure-docs articles/virtual-network/virtual-network-network-interface.md@e39113c74371cebcd2ee8bb85299dbf832c1d14d)",
    "2026-12-03",
);

/// Learn, "What is a private endpoint?": "The private endpoint must be deployed in the same
/// region and subscription as the virtual network."
pub const PRIVATE_ENDPOINT: Source = Source::doc(
    "https://learn.microsoft.com/azure/private-link/private-endpoint-overview \
     (MicrosoftDocs/azure-docs articles/private-link/private-endpoint-overview.md@fd688f2b711fed6942412e0ddfedb5d2c56cba31)",
    "2026-12-03",
);

/// Learn, "Create, change, or delete a route table": "You can only associate a route table to
/// subnets in virtual networks that exist in the same Azure location and subscription as the
/// route table."
pub const ROUTE_TABLE: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-network/manage-route-table \
     (MicrosoftDocs/azure-docs articles/virtual-network/manage-route-table.md@0300cb444a63a1520ed236bbd4e481f09710630f)",
    "2026-12-03",
);
