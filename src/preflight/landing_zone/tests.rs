use serde_json::{Value, json};

use crate::azure::landing_zone::{RouteTable, Subnet};
use crate::preflight::fetch::Fetch;
use crate::preflight::report::{Check, Status};

use super::checks;
use super::gather::{Data, policy_request};
use super::inputs::{Inputs, policy_resources};
use super::network::{prefix_for, usable_addresses};
use super::spec::{Egress, private_endpoints_share_subnet};
use super::workspace::{WorkspaceData, WorkspaceInputs, workspace_checks};

#[test]
fn usable_addresses_leave_azures_five() {
    assert_eq!(usable_addresses("10.0.0.0/24"), Some(251));
    assert_eq!(usable_addresses("10.0.0.0/28"), Some(11));
    assert_eq!(usable_addresses("10.0.0.0/29"), Some(3));
    assert_eq!(usable_addresses("fd00::/64"), None);
    assert_eq!(prefix_for(20), 27);
    assert_eq!(prefix_for(27), 27);
    assert_eq!(prefix_for(28), 26);
}

#[test]
fn resources_come_from_the_template_without_expressions_and_deduplicated() {
    let t = json!({"variables": {"tags": {"env": "prod"}, "vaultName": "kv-a", "computed": "[concat('a', 'b')]"}, "resources": [
        {"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "2025-05-01", "name": "nsg-a", "location": "[parameters('location')]", "tags": "[variables('tags')]",
         "properties": {"securityRules": [{"name": "r", "properties": {"sourceAddressPrefix": "[variables('x')]", "access": "Allow"}}]}},
        {"type": "Microsoft.Network/networkSecurityGroups", "apiVersion": "2025-05-01", "name": "nsg-b", "location": "[parameters('location')]"},
        {"type": "Microsoft.Network/publicIPAddresses", "apiVersion": "2025-05-01", "name": "pip", "location": "[parameters('location')]", "sku": {"name": "StandardV2"}},
        {"type": "Microsoft.KeyVault/vaults", "apiVersion": "2025-05-01", "name": "[variables('vaultName')]", "location": "[parameters('location')]"},
        {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "2025-01-01", "name": "[variables('computed')]", "location": "[parameters('location')]"},
        {"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2025-05-01", "name": "hub", "existing": true},
        {"type": "Microsoft.Insights/actionGroups", "apiVersion": "2023-01-01", "name": "ag", "location": "global"}
    ]});
    let r = policy_resources(&t, "eastus2");
    assert_eq!(r.len(), 5);
    assert_eq!(r[0].count, 2);
    // literal variables are resolved (tag policies see the tags), computed ones left out
    assert_eq!(r[0].content["tags"], json!({"env": "prod"}));
    assert_eq!(r[2].name.as_deref(), Some("kv-a"));
    assert_eq!(r[3].name, None);
    assert_eq!(r[0].content["location"], "eastus2");
    assert_eq!(
        r[0].content["properties"]["securityRules"][0]["properties"],
        json!({"access": "Allow"})
    );
    assert_eq!(r[1].sku.as_deref(), Some("StandardV2"));
    assert!(r[3].content.get("name").is_none());
    assert_eq!(r[4].location.as_deref(), Some("global"));
    assert_eq!(
        policy_request(&r[1])["pendingFields"],
        json!([{"field": "location", "values": ["eastus2"]}])
    );
}

fn udr_inputs() -> Inputs {
    Inputs {
        subnet_id: Some("/subscriptions/s/resourceGroups/n/providers/Microsoft.Network/virtualNetworks/v/subnets/a".into()),
        egress: Egress::UserDefinedRouting,
        region: "eastus2".into(),
        instances: 4,
        surge: 0,
        private_endpoints: vec![],
        pool_names: vec![],
        resources: Ok(vec![]),
        pe_subnet_id: None,
        route_table_id: None,
    }
}

fn subnet(route_table: bool) -> Subnet {
    serde_json::from_value(json!({"name": "a", "properties": {
        "addressPrefix": "10.0.0.0/24",
        "networkSecurityGroup": {"id": "/x/networkSecurityGroups/nsg"},
        "routeTable": if route_table { json!({"id": "/x/routeTables/rt"}) } else { Value::Null },
        "natGateway": {"id": "/x/natGateways/ng"}
    }}))
    .unwrap()
}

fn route(checks: &[Check]) -> &Check {
    checks
        .iter()
        .find(|c| c.id == "subnet-default-route")
        .unwrap()
}

/// Issue 19: the table the DCR writes to must exist before the DCR when the workspace is
/// not gpuform's; preflight reads it and says what the platform team must create.
#[test]
fn a_missing_gpu_table_in_the_existing_workspace_fails_with_the_command() {
    let checked = crate::check::check_file(
        std::path::Path::new("tests/fixtures/render/variants/shared-services.yaml"),
        &crate::spec::Policy::default(),
        crate::catalog::prices::PriceTable::embedded(),
    );
    let spec = checked.spec.as_ref().unwrap();
    let w = WorkspaceInputs::of(spec).expect("the variant joins an existing workspace");
    let (table, command) = w.table.clone().expect("GPU monitoring is on");
    assert_eq!(table, "GpuTelemetry_CL");
    assert!(
        command.starts_with("az monitor log-analytics workspace table create --subscription "),
        "{command}"
    );
    let data = |loc: &str, exists: bool| WorkspaceData {
        location: Fetch::Got(loc.into()),
        table: Some(Fetch::Got(exists)),
    };
    let c = workspace_checks(&w, &data("westeurope", false));
    let t = c.iter().find(|c| c.id == "workspace-table").unwrap();
    assert_eq!(t.status, Status::Fail);
    assert!(
        t.message.contains("GpuTelemetry_CL does not exist"),
        "{}",
        t.message
    );
    assert!(t.fix.as_deref().unwrap().contains(&command), "{:?}", t.fix);
    let ws = c.iter().find(|c| c.id == "workspace").unwrap();
    assert_eq!(ws.status, Status::Pass);
    assert!(
        ws.message.contains("renders no data collection endpoint"),
        "{}",
        ws.message
    );
    let c = workspace_checks(&w, &data(&w.region.clone(), true));
    assert!(c.iter().all(|c| c.status == Status::Pass), "{c:?}");
}

/// Issue 19: a NIC, a private endpoint and a route table must be in the subscription and
/// region of the VNet they join (Learn, facts::placement).
#[test]
fn subnets_and_route_tables_of_another_subscription_or_region_fail() {
    let placement = |c: &[Check]| c.iter().find(|c| c.id == "landing-zone-placement").cloned();
    let data = |sub: &str, rt: Option<RouteTable>| Data {
        subnet: None,
        route_table: rt.map(Fetch::Got),
        policy: Ok(vec![]),
        subscription: Some(sub.into()),
        vnets: Vec::new(),
    };
    let mut i = udr_inputs();
    i.subnet_id = Some("/subscriptions/11111111-1111-1111-1111-111111111111/resourceGroups/n/providers/Microsoft.Network/virtualNetworks/vnet/subnets/a".into());
    let c = checks(&i, &data("22222222-2222-2222-2222-222222222222", None));
    let p = placement(&c).unwrap();
    assert_eq!(p.status, Status::Fail, "{p:?}");
    assert!(p.message.contains("network.existingSubnet is in subscription 11111111-1111-1111-1111-111111111111, but the deployment goes to 22222222-2222-2222-2222-222222222222"), "{}", p.message);
    assert!(
        p.message.contains("virtual-network-network-interface"),
        "{}",
        p.message
    );
    // the same subscription (any case) passes
    let c = checks(&i, &data("11111111-1111-1111-1111-111111111111", None));
    assert_eq!(placement(&c).unwrap().status, Status::Pass);
    // a private endpoint subnet elsewhere
    i.pe_subnet_id = Some("/subscriptions/33333333-3333-3333-3333-333333333333/resourceGroups/n/providers/Microsoft.Network/virtualNetworks/vnet/subnets/pe".into());
    let p = placement(&checks(
        &i,
        &data("11111111-1111-1111-1111-111111111111", None),
    ))
    .unwrap();
    assert_eq!(p.status, Status::Fail);
    assert!(
        p.message
            .contains("network.existingPrivateEndpointSubnet is in subscription 33333333-3333-3333-3333-333333333333"),
        "{}",
        p.message
    );
    // gpuform's own subnet with a route table of another region
    let mut i = udr_inputs();
    i.subnet_id = None;
    i.route_table_id = Some(
        "/subscriptions/22222222-2222-2222-2222-222222222222/resourceGroups/hub/providers/Microsoft.Network/routeTables/rt-hub"
            .into(),
    );
    let rt: RouteTable = serde_json::from_value(
        json!({"name": "rt-hub", "location": "westeurope", "properties": {"routes": []}}),
    )
    .unwrap();
    let p = placement(&checks(
        &i,
        &data("22222222-2222-2222-2222-222222222222", Some(rt.clone())),
    ))
    .unwrap();
    assert_eq!(p.status, Status::Fail);
    assert!(
        p.message
            .contains("network.routeTable.id is in westeurope, the pool's VNet in eastus2"),
        "{}",
        p.message
    );
    let mut here = rt;
    here.location = "East US 2".into();
    assert_eq!(
        placement(&checks(
            &i,
            &data("22222222-2222-2222-2222-222222222222", Some(here))
        ))
        .unwrap()
        .status,
        Status::Pass
    );
    // offline: nothing to compare, no check
    let mut off = data("22222222-2222-2222-2222-222222222222", None);
    off.subscription = None;
    assert!(placement(&checks(&i, &off)).is_none());
}

#[test]
fn with_udr_egress_a_missing_default_route_is_an_error_even_with_a_nat_gateway() {
    let i = udr_inputs();
    let data = |rt: Option<Fetch<RouteTable>>, with_table: bool| Data {
        subnet: Some(Fetch::Got(subnet(with_table))),
        route_table: rt,
        policy: Ok(vec![]),
        subscription: None,
        vnets: Vec::new(),
    };
    // no route table at all
    let c = checks(&i, &data(None, false));
    assert_eq!(route(&c).status, Status::Fail, "{:?}", route(&c));
    assert!(
        route(&c)
            .message
            .contains("userDefinedRouting but nothing sends 0.0.0.0/0 to the hub")
    );
    // a table without 0.0.0.0/0
    let table = |routes: Value| -> RouteTable {
        serde_json::from_value(json!({"name": "rt", "properties": {"routes": routes}})).unwrap()
    };
    let c = checks(
        &i,
        &data(
            Some(Fetch::Got(table(
                json!([{"name": "hub", "properties": {"addressPrefix": "10.0.0.0/8", "nextHopType": "VirtualAppliance", "nextHopIpAddress": "10.1.0.4"}}]),
            ))),
            true,
        ),
    );
    assert_eq!(route(&c).status, Status::Fail);
    assert!(
        route(&c)
            .message
            .contains("route table rt has no default route (0.0.0.0/0)")
    );
    // a default route that drops traffic
    let c = checks(
        &i,
        &data(
            Some(Fetch::Got(table(
                json!([{"name": "d", "properties": {"addressPrefix": "0.0.0.0/0", "nextHopType": "None"}}]),
            ))),
            true,
        ),
    );
    assert_eq!(route(&c).status, Status::Fail);
    // the hub firewall: pass, with its address
    let c = checks(
        &i,
        &data(
            Some(Fetch::Got(table(
                json!([{"name": "d", "properties": {"addressPrefix": "0.0.0.0/0", "nextHopType": "VirtualAppliance", "nextHopIpAddress": "10.1.0.4"}}]),
            ))),
            true,
        ),
    );
    assert_eq!(route(&c).status, Status::Pass);
    assert!(
        route(&c)
            .message
            .contains("0.0.0.0/0 -> VirtualAppliance 10.1.0.4")
    );
    // outbound none: the same table is a warning
    let mut none = udr_inputs();
    none.egress = Egress::None;
    let c = checks(
        &none,
        &data(
            Some(Fetch::Got(table(
                json!([{"name": "d", "properties": {"addressPrefix": "0.0.0.0/0", "nextHopType": "None"}}]),
            ))),
            true,
        ),
    );
    assert_eq!(route(&c).status, Status::Warn);
}

#[test]
fn private_endpoints_share_the_subnet_unless_another_one_is_named() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/landing-zone-spoke.yaml"),
    )
    .unwrap();
    let of = |text: String| {
        let checked = crate::check::check_source(
            text,
            "t.yaml",
            std::path::PathBuf::from("."),
            &crate::spec::Policy::default(),
            crate::catalog::prices::PriceTable::embedded(),
        );
        checked
            .spec
            .unwrap_or_else(|| panic!("{:?}", checked.diagnostics))
    };
    // the example names a separate private-endpoint subnet
    assert!(text.contains("existingPrivateEndpointSubnet"));
    assert!(!private_endpoints_share_subnet(&of(text.clone())));
    // without it the endpoints join the workload subnet
    let shared: String = text
        .lines()
        .filter(|l| !l.contains("existingPrivateEndpointSubnet"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(private_endpoints_share_subnet(&of(shared)));
}

/// Issue 19: each existing subnet's VNet is read for its region; the private-endpoint subnet's
/// VNet elsewhere is refused citing the private endpoint page, the pool's subnet in the spec's
/// region passes.
#[test]
fn the_private_endpoint_subnets_vnet_in_another_region_is_refused() {
    use super::gather::{VnetAnswer, vnet_of, vnet_questions};
    assert_eq!(
        vnet_of("/subscriptions/s/resourceGroups/n/providers/Microsoft.Network/virtualNetworks/v/subnets/a").as_deref(),
        Some("/subscriptions/s/resourceGroups/n/providers/Microsoft.Network/virtualNetworks/v")
    );
    assert_eq!(vnet_of("/subscriptions/s/resourceGroups/n"), None);
    let mut i = udr_inputs();
    i.pe_subnet_id = Some("/subscriptions/s/resourceGroups/h/providers/Microsoft.Network/virtualNetworks/hub/subnets/pe".into());
    let q = vnet_questions(&i);
    assert_eq!(q.len(), 2, "{q:?}");
    let answer = |field: &'static str, id: &str, what: &'static str, loc: &str| VnetAnswer {
        field,
        vnet_id: id.into(),
        what,
        location: Fetch::Got(loc.into()),
    };
    let data = Data {
        subnet: None,
        route_table: None,
        policy: Ok(vec![]),
        subscription: None,
        vnets: vec![
            answer(q[0].0, &q[0].1, q[0].2, "East US 2"),
            answer(q[1].0, &q[1].1, q[1].2, "westeurope"),
        ],
    };
    let c: Vec<Check> = checks(&i, &data)
        .into_iter()
        .filter(|c| c.id == "landing-zone-vnet-region")
        .collect();
    assert_eq!(c.len(), 2, "{c:#?}");
    assert_eq!(c[0].status, Status::Pass, "{:?}", c[0]);
    assert_eq!(c[1].status, Status::Fail, "{:?}", c[1]);
    assert!(c[1].message.contains("network.existingPrivateEndpointSubnet: the virtual network hub is in westeurope, the spec's region is eastus2: the private endpoints must be in their virtual network's region"), "{}", c[1].message);
    assert!(
        c[1].message.contains("private-endpoint-overview"),
        "{}",
        c[1].message
    );
}
