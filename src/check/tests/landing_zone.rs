//! Tests of `plan/landing_zone.rs` on checked specs (`crate::check::check_source`). They live
//! in the check layer, above the plan: a test inside `plan` that ran the check would import a
//! floor above its own.

use crate::catalog::prices::PriceTable;
use crate::check::check_source;
use crate::facts::clouds::Cloud;
use crate::plan::PrivateDnsZone;
use crate::plan::landing_zone::*;
use crate::spec::Policy;

const SUB: &str = "7c1f2e3d-4a5b-4c6d-8e9f-0a1b2c3d4e5f";

fn spec(region: &str, network: &str) -> crate::spec::model::Spec {
    let text = format!(
        r#"apiVersion: gpuform/v1
kind: GpuWorkload
metadata:
  name: lz-test
  tags: {{project: p, team: t, env: prod, costCenter: c}}
spec:
  region: {region}
  workload: {{type: batch, gpuMemoryGiB: 10, precision: fp16, interruptible: false}}
  compute: {{vmSize: Standard_NC4as_T4_v3, sshPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com"}}
  capacity: {{min: 0, max: 6, default: 0}}
  autoscale:
    queue: {{storageQueue: {{account: stlztest, queue: jobs, create: true}}, targetPerInstance: 1}}
  network:
{network}
  monitoring: {{alertEmails: [a@example.com]}}
"#
    );
    let c = check_source(
        text,
        "lz.yaml",
        std::path::PathBuf::from("."),
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(!c.has_errors(), "{:#?}", c.diagnostics);
    c.spec.unwrap()
}

fn subnet(rg: &str, vnet: &str, name: &str) -> String {
    format!(
        "/subscriptions/{SUB}/resourceGroups/{rg}/providers/Microsoft.Network/virtualNetworks/{vnet}/subnets/{name}"
    )
}

#[test]
fn private_endpoints_share_the_workload_subnet_unless_given_their_own() {
    let shared = spec(
        "westeurope",
        &format!(
            "    existingSubnet: {}\n    outbound: userDefinedRouting",
            subnet("rg-net", "vnet-a", "snet-gpu")
        ),
    );
    let e = existing_network(&shared.spec).unwrap();
    assert!(e.pe_in_workload_subnet && e.pe_same_vnet);
    assert_eq!(e.workload.subscription, SUB);
    assert_eq!(e.workload.resource_group, "rg-net");
    assert_eq!(
        (e.workload.vnet.as_str(), e.workload.subnet.as_str()),
        ("vnet-a", "snet-gpu")
    );
    // 6 VMs, the vault's and the queue's private endpoints
    assert_eq!(addresses_needed(&shared.spec), 8);

    // the same VNet written in another case is the same VNet (Azure compares without case)
    let own = spec(
        "westeurope",
        &format!(
            "    existingSubnet: {}\n    existingPrivateEndpointSubnet: {}\n    outbound: none",
            subnet("rg-net", "vnet-a", "snet-gpu"),
            subnet("RG-NET", "VNET-A", "snet-pe").replace("/subscriptions/", "/SUBSCRIPTIONS/")
        ),
    );
    let e = existing_network(&own.spec).unwrap();
    assert!(!e.pe_in_workload_subnet && e.pe_same_vnet);
    assert_eq!(addresses_needed(&own.spec), 6);

    let other = spec(
        "westeurope",
        &format!(
            "    existingSubnet: {}\n    existingPrivateEndpointSubnet: {}\n    outbound: none",
            subnet("rg-net", "vnet-a", "snet-gpu"),
            subnet("rg-shared", "vnet-b", "snet-pe")
        ),
    );
    assert!(!existing_network(&other.spec).unwrap().pe_same_vnet);
    // no existing subnet: nothing of this
    let plain = spec("westeurope", "    addressSpace: 10.9.0.0/16");
    assert!(existing_network(&plain.spec).is_none());
}

#[test]
fn the_allow_list_names_the_hosts_of_the_pools_cloud() {
    let net = |_: &str| {
        format!(
            "    existingSubnet: {}\n    outbound: userDefinedRouting",
            subnet("rg-net", "vnet-a", "snet-gpu")
        )
    };
    let size = crate::catalog::find("Standard_NC4as_T4_v3");
    for (region, cloud, must, must_not) in [
        (
            "westeurope",
            Cloud::AzureCloud,
            vec![
                "global.handler.control.monitor.azure.com",
                "westeurope.handler.control.monitor.azure.com",
                "login.microsoftonline.com",
                "management.azure.com",
            ],
            vec![".cn", ".us"],
        ),
        (
            "chinanorth3",
            Cloud::AzureChinaCloud,
            vec![
                "global.handler.control.monitor.azure.cn",
                "*.ods.opinsights.azure.cn",
                "login.chinacloudapi.cn",
                "management.chinacloudapi.cn",
            ],
            vec![
                "monitor.azure.com",
                "opinsights.azure.com",
                "microsoftonline.com",
                "management.azure.com",
            ],
        ),
        (
            "usgovvirginia",
            Cloud::AzureUSGovernment,
            vec![
                "usgovvirginia.handler.control.monitor.azure.us",
                "login.microsoftonline.us",
                "management.usgovcloudapi.net",
            ],
            vec![
                "monitor.azure.com",
                "microsoftonline.com",
                "management.azure.com",
            ],
        ),
    ] {
        let s = spec(region, &net(region));
        assert_eq!(cloud_of(&s.spec), cloud);
        let list = firewall_allow_list(&s.spec, size, cloud);
        let targets: Vec<&str> = list.iter().map(|e| e.target.as_str()).collect();
        for m in must {
            assert!(
                targets.contains(&m),
                "{region}: {m} missing from {targets:?}"
            );
        }
        // the driver extension and the image mirror, in every cloud
        for m in [
            "download.microsoft.com",
            "developer.download.nvidia.com",
            "azure.archive.ubuntu.com",
        ] {
            assert!(targets.contains(&m), "{region}: {m} missing");
        }
        for t in &targets {
            for bad in &must_not {
                assert!(!t.ends_with(bad), "{region}: {t} is another cloud's host");
            }
        }
    }
}

#[test]
fn expected_zone_names_follow_the_cloud() {
    assert_eq!(
        expected_zone_name(PrivateDnsZone::KeyVault, None, Cloud::AzureUSGovernment),
        "privatelink.vaultcore.usgovcloudapi.net"
    );
    assert_eq!(
        expected_zone_name(
            PrivateDnsZone::Storage,
            Some("queue"),
            Cloud::AzureChinaCloud
        ),
        "privatelink.queue.core.chinacloudapi.cn"
    );
}

#[test]
fn the_driver_hosts_follow_the_gpu_vendor() {
    let s = spec(
        "westeurope",
        &format!(
            "    existingSubnet: {}\n    outbound: userDefinedRouting",
            subnet("rg-net", "vnet-a", "snet-gpu")
        ),
    );
    let targets = |size: &str| -> Vec<String> {
        let z = crate::catalog::find(size);
        assert!(z.is_some(), "{size} is in the catalog");
        firewall_allow_list(&s.spec, z, Cloud::AzureCloud)
            .into_iter()
            .filter(|e| e.why == "GPU driver extension downloads")
            .map(|e| e.target)
            .collect()
    };
    // the lists of Azure/azhpc-extensions: NVIDIA's Ubuntu entries name NVIDIA's CUDA repository,
    // AMD's Linux lists AMD's ROCm repository and no NVIDIA host
    let nvidia = targets("Standard_NC4as_T4_v3");
    assert!(
        nvidia.iter().any(|t| t == "developer.download.nvidia.com"),
        "{nvidia:?}"
    );
    assert!(!nvidia.iter().any(|t| t == "repo.radeon.com"), "{nvidia:?}");
    let amd = targets("Standard_NV12ads_V710_v5");
    assert!(amd.iter().any(|t| t == "repo.radeon.com"), "{amd:?}");
    assert!(!amd.iter().any(|t| t.contains("nvidia")), "{amd:?}");
}
