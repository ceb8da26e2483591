//! The serving frontend (templates/serving.bicep.hbs): the internal Standard Load Balancer, the
//! Private Link service on it, and the private-only Application Gateway v2.

use crate::emit::value::Value;

use crate::emit::value::json;

use crate::plan::serving::{Gateway, LoadBalancer, PrivateLinkService};

use super::expr::{lit, put, q, x};
use super::symbols::Arm;

/// `resourceId()` of a child (`frontendIPConfigurations`, `probes`, ...) of a resource the
/// template deploys, as both emitters spell a reference inside the resource's own body.
fn child(ty: &str, parent: &str, name: &str) -> Value {
    json!({ "id": x(format!("resourceId({}, {}, {})", q(ty), q(parent), q(name))) })
}

pub(super) fn serving(a: &Arm, out: &mut Vec<Value>) {
    let Some(sv) = a.p.serving.as_ref() else {
        return;
    };
    if let Some(lb) = &sv.load_balancer {
        out.push(load_balancer(a, lb));
    }
    if let Some(pls) = &sv.private_link {
        out.push(private_link(a, pls, sv.load_balancer.as_ref().expect("lb")));
    }
    if let Some(g) = &sv.gateway {
        out.push(gateway(a, g));
    }
    if let Some(g) = &sv.gpu_scaling {
        out.push(app_insights(a, g));
    }
}

/// The Application Insights component of GPU-utilisation scaling (templates/serving.bicep.hbs
/// `appi`): workspace-based, local authentication disabled.
fn app_insights(a: &Arm, g: &crate::plan::serving_gpu::GpuScaling) -> Value {
    json!({
        "type": crate::facts::app_insights::COMPONENT_TYPE,
        "apiVersion": a.p.api.app_insights,
        "name": lit(&g.component_name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "kind": g.component_kind,
        "properties": {
            "Application_Type": g.application_type,
            "WorkspaceResourceId": x(a.id("workspace")),
            "IngestionMode": g.ingestion_mode,
            "DisableLocalAuth": true,
            "DisableIpMasking": false,
            "publicNetworkAccessForIngestion": "Enabled",
            "publicNetworkAccessForQuery": "Enabled"
        },
        "dependsOn": a.depends(&["workspace"])
    })
}

fn load_balancer(a: &Arm, lb: &LoadBalancer) -> Value {
    let ty = crate::facts::serving::LOAD_BALANCER_TYPE;
    let mut frontend = json!({
        "name": lit(&lb.frontend_name),
        "properties": {
            "privateIPAllocationMethod": "Dynamic",
            "privateIPAddressVersion": "IPv4",
            "subnet": { "id": x(a.id("workloadSubnet")) }
        }
    });
    if !lb.zones.is_empty() {
        put(
            &mut frontend,
            "zones",
            Value::Array(lb.zones.iter().map(|z| lit(z)).collect()),
        );
    }
    json!({
        "type": ty,
        "apiVersion": a.p.api.network,
        "name": lit(&lb.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "sku": { "name": lb.sku, "tier": "Regional" },
        "properties": {
            "frontendIPConfigurations": [ frontend ],
            "backendAddressPools": [ { "name": lit(&lb.pool_name) } ],
            "probes": [ {
                "name": lit(&lb.probe_name),
                "properties": {
                    "protocol": "Http",
                    "port": lb.probe_port,
                    "requestPath": lit(&lb.probe_path),
                    "intervalInSeconds": lb.probe_interval,
                    "probeThreshold": lb.probe_threshold
                }
            } ],
            "loadBalancingRules": [ {
                "name": lit(&lb.rule_name),
                "properties": {
                    "frontendIPConfiguration": child(&format!("{ty}/frontendIPConfigurations"), &lb.name, &lb.frontend_name),
                    "backendAddressPool": child(&format!("{ty}/backendAddressPools"), &lb.name, &lb.pool_name),
                    "probe": child(&format!("{ty}/probes"), &lb.name, &lb.probe_name),
                    "protocol": "Tcp",
                    "frontendPort": lb.port,
                    "backendPort": lb.port,
                    "idleTimeoutInMinutes": lb.idle_timeout_minutes,
                    "enableTcpReset": true,
                    "enableFloatingIP": false,
                    "disableOutboundSnat": true,
                    "loadDistribution": "Default"
                }
            } ]
        },
        "dependsOn": a.depends(&["vnet"])
    })
}

fn private_link(a: &Arm, pls: &PrivateLinkService, lb: &LoadBalancer) -> Value {
    json!({
        "type": crate::facts::serving::PRIVATE_LINK_SERVICE_TYPE,
        "apiVersion": a.p.api.network,
        "name": lit(&pls.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "loadBalancerFrontendIpConfigurations": [ {
                "id": x(format!("format('{{0}}/frontendIPConfigurations/{{1}}', {}, {})", a.id("lb"), q(&lb.frontend_name)))
            } ],
            "ipConfigurations": [ {
                "name": lit(&pls.nat_ip_name),
                "properties": {
                    "primary": true,
                    "privateIPAllocationMethod": "Dynamic",
                    "privateIPAddressVersion": "IPv4",
                    "subnet": { "id": x(a.id("privateLinkSubnet")) }
                }
            } ],
            "enableProxyProtocol": false
        },
        "dependsOn": a.depends(&["lb", "vnet"])
    })
}

fn gateway(a: &Arm, g: &Gateway) -> Value {
    let ty = crate::facts::serving::GATEWAY_TYPE;
    let c = |sub: &str, name: &str| child(&format!("{ty}/{sub}"), &g.name, name);
    let mut gw = json!({
        "type": ty,
        "apiVersion": a.p.api.network,
        "name": lit(&g.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "sku": { "name": g.sku, "tier": g.sku },
            "sslPolicy": { "policyType": "Predefined", "policyName": g.ssl_policy },
            "autoscaleConfiguration": { "minCapacity": g.min_capacity, "maxCapacity": g.max_capacity },
            "gatewayIPConfigurations": [ {
                "name": "gateway-ip",
                "properties": { "subnet": { "id": x(a.id("gatewaySubnet")) } }
            } ],
            "frontendIPConfigurations": [ {
                "name": lit(&g.frontend_ip_name),
                "properties": {
                    "privateIPAllocationMethod": "Static",
                    "privateIPAddress": lit(&g.private_ip),
                    "subnet": { "id": x(a.id("gatewaySubnet")) }
                }
            } ],
            "frontendPorts": [ { "name": lit(&g.frontend_port_name), "properties": { "port": g.port } } ],
            "backendAddressPools": [ { "name": lit(&g.pool_name) } ],
            "probes": [ {
                "name": lit(&g.probe_name),
                "properties": {
                    "protocol": g.backend_protocol,
                    "host": "127.0.0.1",
                    "path": lit(&g.probe_path),
                    "port": g.probe_port,
                    "interval": g.probe_interval,
                    "timeout": g.probe_timeout,
                    "unhealthyThreshold": g.unhealthy_threshold,
                    "pickHostNameFromBackendHttpSettings": false,
                    "match": { "statusCodes": [ g.probe_status_codes ] }
                }
            } ],
            "backendHttpSettingsCollection": [ {
                "name": lit(&g.settings_name),
                "properties": {
                    "port": g.port,
                    "protocol": g.backend_protocol,
                    "cookieBasedAffinity": "Disabled",
                    "pickHostNameFromBackendAddress": false,
                    "requestTimeout": g.request_timeout_seconds,
                    "connectionDraining": { "enabled": true, "drainTimeoutInSec": g.drain_timeout_seconds },
                    "probe": c("probes", &g.probe_name)
                }
            } ],
            "httpListeners": [ {
                "name": lit(&g.listener_name),
                "properties": {
                    "frontendIPConfiguration": c("frontendIPConfigurations", &g.frontend_ip_name),
                    "frontendPort": c("frontendPorts", &g.frontend_port_name),
                    "protocol": g.backend_protocol
                }
            } ],
            "requestRoutingRules": [ {
                "name": lit(&g.rule_name),
                "properties": {
                    "ruleType": "Basic",
                    "priority": g.rule_priority,
                    "httpListener": c("httpListeners", &g.listener_name),
                    "backendAddressPool": c("backendAddressPools", &g.pool_name),
                    "backendHttpSettings": c("backendHttpSettingsCollection", &g.settings_name)
                }
            } ],
            "enableHttp2": false
        },
        "dependsOn": a.depends(&["vnet"])
    });
    if !g.zones.is_empty() {
        put(
            &mut gw,
            "zones",
            Value::Array(g.zones.iter().map(|z| lit(z)).collect()),
        );
    }
    gw
}
