// GPU pool `variant-tiers`, rendered by gpuform from tiered-scale-out.yaml.
// Generated file: change the spec and run `gpuform render` instead of editing it.
// Sections: parameters, network, identity, key vault and encryption, compute, autoscale,
// monitoring, outputs. azuredeploy.json is the same deployment as ARM JSON.
targetScope = 'resourceGroup'

metadata name = 'variant-tiers'

// ---------------------------------------------------------------- parameters

@description('Region of every resource. main.bicepparam sets the spec\'s region (eastus).')
param location string = resourceGroup().location

@description('Admin user name of the VMs.')
param adminUsername string = 'azureuser'

@description('SSH public key of the admin user (OpenSSH format). Password sign-in is disabled.')
param sshPublicKey string = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'

var tags = {
  'costCenter': 'cc-1'
  'env': 'prod'
  'project': 'p'
  'team': 't'
}

// ---------------------------------------------------------------- network
// One VNet, a workload subnet and a private endpoint subnet. Subnets have no default outbound
// access; the NAT gateway gives the VMs egress (the GPU driver extension downloads the driver).

resource nsgWorkload 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-tiers-workload'
  location: location
  tags: tags
  properties: {
    // Only the spec's inbound allow rules; Azure's default rules deny all other inbound traffic.
    securityRules: [
    ]
  }
}

resource nsgPrivateEndpoints 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-tiers-private-endpoints'
  location: location
  tags: tags
  properties: {
    securityRules: []
  }
}

// Regional pool (no zones): a Standard NAT gateway without a zone, like the pool.
resource natPublicIp 'Microsoft.Network/publicIPAddresses@2025-05-01' = {
  name: 'pip-variant-tiers-nat'
  location: location
  tags: tags
  sku: {
    name: 'Standard'
    tier: 'Regional'
  }
  properties: {
    publicIPAllocationMethod: 'Static'
    publicIPAddressVersion: 'IPv4'
  }
}

resource natGateway 'Microsoft.Network/natGateways@2025-05-01' = {
  name: 'ng-variant-tiers'
  location: location
  tags: tags
  sku: {
    name: 'Standard'
  }
  properties: {
    idleTimeoutInMinutes: 4
    publicIpAddresses: [
      {
        id: natPublicIp.id
      }
    ]
  }
}

resource vnet 'Microsoft.Network/virtualNetworks@2025-05-01' = {
  name: 'vnet-variant-tiers'
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.71.0.0/16'
      ]
    }
    // Subnets inline, so a redeployment never tries to delete them.
    subnets: [
      {
        name: 'snet-workload'
        properties: {
          addressPrefix: '10.71.0.0/24'
          defaultOutboundAccess: false
          networkSecurityGroup: {
            id: nsgWorkload.id
          }
          natGateway: {
            id: natGateway.id
          }
        }
      }
      {
        name: 'snet-private-endpoints'
        properties: {
          addressPrefix: '10.71.1.0/27'
          defaultOutboundAccess: false
          privateEndpointNetworkPolicies: 'Enabled'
          networkSecurityGroup: {
            id: nsgPrivateEndpoints.id
          }
        }
      }
    ]
  }

  resource workloadSubnet 'subnets' existing = {
    name: 'snet-workload'
  }

  resource privateEndpointSubnet 'subnets' existing = {
    name: 'snet-private-endpoints'
  }
}

// ---------------------------------------------------------------- identity
// The pool's user-assigned identity and every role assignment of the deployment, each scoped
// to one resource with a deterministic name: guid(scope, principal, role).

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: 'id-variant-tiers'
  location: location
  tags: tags
}

// Key Vault Secrets User: The pool's identity reads secrets from the vault.
resource identitySecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vault.id, identity.id, '4633458b-17de-408a-b874-0445c86b69e6')
  scope: vault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '4633458b-17de-408a-b874-0445c86b69e6')
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    description: 'The pool\'s identity reads secrets from the vault.'
  }
}

// Azure Service Bus Data Receiver: The pool's identity receives messages from the queue jobs.
resource identityQueueReceiver 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(sbQueue.id, identity.id, '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0')
  scope: sbQueue
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0')
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    description: 'The pool\'s identity receives messages from the queue jobs.'
  }
}

// ---------------------------------------------------------------- key vault and encryption
// RBAC authorization, soft delete, purge protection and a firewall that denies by default.

// Globally unique and stable per resource group: at most 24 characters.
var vaultName = 'kv-variant-${uniqueString(resourceGroup().id)}'

resource vault 'Microsoft.KeyVault/vaults@2025-05-01' = {
  name: vaultName
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    enablePurgeProtection: true
    enabledForDeployment: false
    enabledForTemplateDeployment: false
    enabledForDiskEncryption: false
    publicNetworkAccess: 'Disabled'
    networkAcls: {
      bypass: 'AzureServices'
      defaultAction: 'Deny'
      ipRules: []
      virtualNetworkRules: []
    }
  }
}

// The vault is reachable only through this private endpoint and its private DNS zone.
resource vaultDnsZone 'Microsoft.Network/privateDnsZones@2024-06-01' = {
  // privatelink.vaultcore.<the cloud's domain>: environment() gives the vault suffix of the target cloud
  name: 'privatelink${replace(environment().suffixes.keyvaultDns, 'vault', 'vaultcore')}'
  location: 'global'
  tags: tags

  resource vnetLink 'virtualNetworkLinks' = {
    name: 'link-vnet-variant-tiers'
    location: 'global'
    tags: tags
    properties: {
      registrationEnabled: false
      virtualNetwork: {
        id: vnet.id
      }
    }
  }
}

resource vaultPrivateEndpoint 'Microsoft.Network/privateEndpoints@2025-05-01' = {
  name: 'pep-variant-tiers-vault'
  location: location
  tags: tags
  properties: {
    subnet: {
      id: vnet::privateEndpointSubnet.id
    }
    customNetworkInterfaceName: 'pep-variant-tiers-vault-nic'
    privateLinkServiceConnections: [
      {
        name: 'pep-variant-tiers-vault'
        properties: {
          privateLinkServiceId: vault.id
          groupIds: [
            'vault'
          ]
        }
      }
    ]
  }

  resource zoneGroup 'privateDnsZoneGroups' = {
    name: 'default'
    properties: {
      privateDnsZoneConfigs: [
        {
          name: 'vault'
          properties: {
            privateDnsZoneId: vaultDnsZone.id
          }
        }
      ]
    }
  }
}

// ---------------------------------------------------------------- compute
// Flexible orchestration, Standard_NC8as_T4_v3, image ubuntu-22.04. No public IPs on the instances.

resource vmss 'Microsoft.Compute/virtualMachineScaleSets@2025-11-01' = {
  // checkov:skip=CKV_AZURE_95: checkov fails every Flexible scale set here; automatic OS image upgrades would also swap the image under the GPU driver and CUDA stack. Roll out a new image by redeploying after testing the driver
  name: 'vmss-variant-tiers'
  location: location
  tags: tags
  sku: {
    name: 'Standard_NC8as_T4_v3'
    tier: 'Standard'
    capacity: 1
  }
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identity.id}': {}
    }
  }
  properties: {
    orchestrationMode: 'Flexible'
    platformFaultDomainCount: 1
    singlePlacementGroup: false
    priorityMixPolicy: {
      baseRegularPriorityCount: 1
      regularPriorityPercentageAboveBase: 0
    }
    scaleInPolicy: {
      rules: [
        'Default'
      ]
      forceDeletion: false
    }
    virtualMachineProfile: {
      priority: 'Spot'
      evictionPolicy: 'Delete'
      billingProfile: {
        maxPrice: -1
      }
      osProfile: {
        computerNamePrefix: 'variant-tiers'
        adminUsername: adminUsername
        linuxConfiguration: {
          disablePasswordAuthentication: true
          provisionVMAgent: true
          ssh: {
            publicKeys: [
              {
                path: '/home/${adminUsername}/.ssh/authorized_keys'
                keyData: sshPublicKey
              }
            ]
          }
        }
        allowExtensionOperations: true
      }
      storageProfile: {
        imageReference: {
          publisher: 'Canonical'
          offer: '0001-com-ubuntu-server-jammy'
          sku: '22_04-lts-gen2'
          version: 'latest'
        }
        osDisk: {
          createOption: 'FromImage'
          caching: 'ReadWrite'
          diskSizeGB: 128
          managedDisk: {
            storageAccountType: 'Premium_LRS'
          }
          deleteOption: 'Delete'
        }
      }
      securityProfile: {
        encryptionAtHost: true
        // Explicit: Trusted Launch by default would turn Secure Boot on under the GPU driver.
        securityType: 'Standard'
      }
      networkProfile: {
        networkApiVersion: '2022-11-01'
        networkInterfaceConfigurations: [
          {
            name: 'nic-variant-tiers'
            properties: {
              primary: true
              enableAcceleratedNetworking: true
              enableIPForwarding: false
              deleteOption: 'Delete'
              ipConfigurations: [
                {
                  name: 'ipconfig1'
                  properties: {
                    primary: true
                    subnet: {
                      id: vnet::workloadSubnet.id
                    }
                  }
                }
              ]
            }
          }
        ]
      }
      diagnosticsProfile: {
        // Boot diagnostics in managed storage.
        bootDiagnostics: {
          enabled: true
        }
      }
      extensionProfile: {
        extensions: [
          {
            // GPU driver: cuda (NvidiaGpuDriverLinux), CUDA 12.8
            name: 'NvidiaGpuDriverLinux'
            properties: {
              publisher: 'Microsoft.HpcCompute'
              type: 'NvidiaGpuDriverLinux'
              typeHandlerVersion: '1.6'
              autoUpgradeMinorVersion: true
              settings: {}
            }
          }
        ]
      }
    }
  }
}

// ---------------------------------------------------------------- autoscale
// Service Bus namespace (Standard: no private endpoints; Entra ID only, TLS 1.2) and the work queue.
resource sbNamespace 'Microsoft.ServiceBus/namespaces@2024-01-01' = {
  name: 'sb-tiers-test'
  location: location
  tags: tags
  sku: {
    name: 'Standard'
    tier: 'Standard'
  }
  properties: {
    disableLocalAuth: true
    minimumTlsVersion: '1.2'
    publicNetworkAccess: 'Enabled'
  }
}

resource sbQueue 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' = {
  parent: sbNamespace
  name: 'jobs'
  properties: {
    lockDuration: 'PT5M'
    maxDeliveryCount: 10
    deadLetteringOnMessageExpiration: true
  }
}

// Profiles: the default first, then each recurring profile. A recurring profile has no end;
// it applies until the next one starts, so every schedule has a start and a restore profile.
resource autoscale 'Microsoft.Insights/autoscaleSettings@2022-10-01' = {
  name: 'as-variant-tiers'
  location: location
  tags: tags
  properties: {
    name: 'as-variant-tiers'
    enabled: true
    targetResourceUri: vmss.id
    profiles: [
      // Applies whenever no recurring profile has started.
      {
        name: 'default'
        capacity: {
          minimum: '1'
          maximum: '12'
          default: '1'
        }
        rules: [
          // Scale out by 2 when the backlog per instance exceeds 5 messages.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'GreaterThan'
              threshold: 5
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Increase'
              type: 'ChangeCount'
              value: '2'
              cooldown: 'PT2M'
            }
          }
          // Scale out by 4 when the backlog per instance exceeds 15 messages.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'GreaterThan'
              threshold: 15
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Increase'
              type: 'ChangeCount'
              value: '4'
              cooldown: 'PT2M'
            }
          }
          // Scale out by 8 when the backlog per instance exceeds 40 messages.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'GreaterThan'
              threshold: 40
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Increase'
              type: 'ChangeCount'
              value: '8'
              cooldown: 'PT2M'
            }
          }
          // Scale in below 2 messages per instance: one instance fewer still stays under 5, so it cannot flap.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'LessThan'
              threshold: 2
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Decrease'
              type: 'ChangeCount'
              value: '1'
              cooldown: 'PT15M'
            }
          }
        ]
      }
      // Schedule `peak` starts.
      {
        name: 'peak'
        capacity: {
          minimum: '4'
          maximum: '12'
          default: '4'
        }
        recurrence: {
          frequency: 'Week'
          schedule: {
            timeZone: 'UTC'
            days: [
              'Monday'
              'Friday'
            ]
            hours: [
              17
            ]
            minutes: [
              0
            ]
          }
        }
        rules: [
          // Scale out by 2 when the backlog per instance exceeds 5 messages.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'GreaterThan'
              threshold: 5
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Increase'
              type: 'ChangeCount'
              value: '2'
              cooldown: 'PT2M'
            }
          }
          // Scale out by 4 when the backlog per instance exceeds 15 messages.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'GreaterThan'
              threshold: 15
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Increase'
              type: 'ChangeCount'
              value: '4'
              cooldown: 'PT2M'
            }
          }
          // Scale out by 8 when the backlog per instance exceeds 40 messages.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'GreaterThan'
              threshold: 40
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Increase'
              type: 'ChangeCount'
              value: '8'
              cooldown: 'PT2M'
            }
          }
          // Scale in below 2 messages per instance: one instance fewer still stays under 5, so it cannot flap.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'LessThan'
              threshold: 2
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Decrease'
              type: 'ChangeCount'
              value: '1'
              cooldown: 'PT15M'
            }
          }
        ]
      }
      // Schedule `peak` ends: back to the default limits (a recurring profile has no end of its own).
      {
        name: 'peak (end)'
        capacity: {
          minimum: '1'
          maximum: '12'
          default: '1'
        }
        recurrence: {
          frequency: 'Week'
          schedule: {
            timeZone: 'UTC'
            days: [
              'Monday'
              'Friday'
            ]
            hours: [
              21
            ]
            minutes: [
              0
            ]
          }
        }
        rules: [
          // Scale out by 2 when the backlog per instance exceeds 5 messages.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'GreaterThan'
              threshold: 5
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Increase'
              type: 'ChangeCount'
              value: '2'
              cooldown: 'PT2M'
            }
          }
          // Scale out by 4 when the backlog per instance exceeds 15 messages.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'GreaterThan'
              threshold: 15
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Increase'
              type: 'ChangeCount'
              value: '4'
              cooldown: 'PT2M'
            }
          }
          // Scale out by 8 when the backlog per instance exceeds 40 messages.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'GreaterThan'
              threshold: 40
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Increase'
              type: 'ChangeCount'
              value: '8'
              cooldown: 'PT2M'
            }
          }
          // Scale in below 2 messages per instance: one instance fewer still stays under 5, so it cannot flap.
          {
            metricTrigger: {
              metricName: 'ActiveMessages'
              metricNamespace: 'Microsoft.ServiceBus/namespaces'
              metricResourceUri: sbNamespace.id
              timeGrain: 'PT1M'
              statistic: 'Average'
              timeWindow: 'PT5M'
              timeAggregation: 'Average'
              operator: 'LessThan'
              threshold: 2
              dividePerInstance: true
              dimensions: [
                {
                  DimensionName: 'EntityName'
                  Operator: 'Equals'
                  Values: [
                    'jobs'
                  ]
                }
              ]
            }
            scaleAction: {
              direction: 'Decrease'
              type: 'ChangeCount'
              value: '1'
              cooldown: 'PT15M'
            }
          }
        ]
      }
    ]
    notifications: [
      {
        operation: 'Scale'
        email: {
          sendToSubscriptionAdministrator: false
          sendToSubscriptionCoAdministrators: false
          customEmails: [
            'a@example.com'
          ]
        }
        webhooks: []
      }
    ]
    predictiveAutoscalePolicy: {
      scaleMode: 'Disabled'
    }
  }
}

// ---------------------------------------------------------------- monitoring

resource workspace 'Microsoft.OperationalInsights/workspaces@2025-02-01' = {
  name: 'log-variant-tiers'
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: 30
    features: {
      enableLogAccessUsingOnlyResourcePermissions: true
    }
  }
}

resource vaultDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: vault
  properties: {
    workspaceId: workspace.id
    logs: [
      {
        category: 'AuditEvent'
        enabled: true
      }
      {
        category: 'AzurePolicyEvaluationDetails'
        enabled: true
      }
    ]
    metrics: [
      {
        category: 'AllMetrics'
        enabled: true
      }
    ]
  }
}

resource autoscaleDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: autoscale
  properties: {
    workspaceId: workspace.id
    logs: [
      {
        category: 'AutoscaleEvaluations'
        enabled: true
      }
      {
        category: 'AutoscaleScaleActions'
        enabled: true
      }
    ]
    metrics: [
      {
        category: 'AllMetrics'
        enabled: true
      }
    ]
  }
}

resource sbDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: 'to-log-analytics'
  scope: sbNamespace
  properties: {
    workspaceId: workspace.id
    logs: [
      {
        category: 'OperationalLogs'
        enabled: true
      }
    ]
    metrics: [
      {
        category: 'AllMetrics'
        enabled: true
      }
    ]
  }
}

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: 'ag-variant-tiers'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'variant-tier'
    enabled: true
    emailReceivers: [
      {
        name: 'email-1'
        emailAddress: 'a@example.com'
        useCommonAlertSchema: true
      }
    ]
  }
}

// The pool has run at its maximum of 12 instances for an hour: the queue outgrows the pool (raise capacity.max or the quota).
resource alertCapacityAtMax 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-variant-tiers-capacity-at-max'
  location: 'global'
  tags: tags
  properties: {
    description: 'The pool has run at its maximum of 12 instances for an hour: the queue outgrows the pool (raise capacity.max or the quota).'
    severity: 2
    enabled: true
    autoMitigate: true
    scopes: [
      autoscale.id
    ]
    evaluationFrequency: 'PT15M'
    windowSize: 'PT1H'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'ObservedCapacity'
          metricNamespace: 'Microsoft.Insights/autoscalesettings'
          metricName: 'ObservedCapacity'
          operator: 'GreaterThanOrEqual'
          threshold: 12
          timeAggregation: 'Average'
        }
      ]
    }
    actions: [
      {
        actionGroupId: actionGroup.id
      }
    ]
  }
}

// More than 60 messages wait in jobs: more than the full pool (12 instances x 5) works through.
resource alertQueueBacklog 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-variant-tiers-queue-backlog'
  location: 'global'
  tags: tags
  properties: {
    description: 'More than 60 messages wait in jobs: more than the full pool (12 instances x 5) works through.'
    severity: 2
    enabled: true
    autoMitigate: true
    scopes: [
      sbNamespace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT30M'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'ActiveMessages'
          metricNamespace: 'Microsoft.ServiceBus/namespaces'
          metricName: 'ActiveMessages'
          operator: 'GreaterThan'
          threshold: 60
          timeAggregation: 'Average'
          dimensions: [
            {
              name: 'EntityName'
              operator: 'Include'
              values: [
                'jobs'
              ]
            }
          ]
        }
      ]
    }
    actions: [
      {
        actionGroupId: actionGroup.id
      }
    ]
  }
}

// More than a tenth of the pool's VMs have been unavailable for 15 minutes (host or health failures).
resource alertVmAvailability 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-variant-tiers-vm-availability'
  location: 'global'
  tags: tags
  properties: {
    description: 'More than a tenth of the pool\'s VMs have been unavailable for 15 minutes (host or health failures).'
    severity: 1
    enabled: true
    autoMitigate: true
    scopes: [
      vmss.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'VmAvailabilityMetric'
          metricNamespace: 'Microsoft.Compute/virtualMachineScaleSets'
          metricName: 'VmAvailabilityMetric'
          operator: 'LessThan'
          threshold: json('0.9')
          timeAggregation: 'Average'
        }
      ]
    }
    actions: [
      {
        actionGroupId: actionGroup.id
      }
    ]
  }
}

// ---------------------------------------------------------------- outputs

@description('Resource id of the scale set.')
output vmssId string = vmss.id

@description('Principal id of the pool\'s managed identity (for more role assignments).')
output identityPrincipalId string = identity.properties.principalId

@description('Client id of the pool\'s managed identity (for SDK sign-in on the VMs).')
output identityClientId string = identity.properties.clientId

@description('URI of the Key Vault.')
output vaultUri string = vault.properties.vaultUri

@description('Resource id of the Log Analytics workspace.')
output logAnalyticsWorkspaceId string = workspace.id
