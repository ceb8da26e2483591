// GPU pool `cad-viz`, rendered by gpuform from windows-viz-nv.yaml.
// Generated file: change the spec and run `gpuform render` instead of editing it.
// Sections: parameters, network, identity, key vault and encryption, compute, autoscale,
// monitoring, outputs. azuredeploy.json is the same deployment as ARM JSON.
targetScope = 'resourceGroup'

metadata name = 'cad-viz'

// ---------------------------------------------------------------- parameters

@description('Region of every resource. main.bicepparam sets the spec\'s region (westeurope).')
param location string = resourceGroup().location

@description('Admin user name of the VMs.')
param adminUsername string = 'cadadmin'

@description('Admin password of the Windows VMs (12-123 characters, three of: lower case, upper case, digit, symbol). Pass it at deployment time; it has no default.')
@secure()
@minLength(12)
@maxLength(123)
param adminPassword string

@description('First day of the month the budget starts (YYYY-MM-01). Azure refuses to change the start date of an existing budget: on later deployments pass the date the budget was created with.')
param budgetStartDate string = utcNow('yyyy-MM-01')

var tags = {
  'costCenter': 'cc-4410'
  'env': 'prod'
  'project': 'plant-design'
  'team': 'engineering-it'
}

// ---------------------------------------------------------------- network
// One VNet, a workload subnet and a private endpoint subnet. Subnets have no default outbound
// access; the NAT gateway gives the VMs egress (the GPU driver extension downloads the driver).

resource nsgWorkload 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-cad-viz-workload'
  location: location
  tags: tags
  properties: {
    // Only the spec's inbound allow rules; Azure's default rules deny all other inbound traffic.
    securityRules: [
      {
        name: 'rdp-from-corp'
        properties: {
          priority: 1000
          direction: 'Inbound'
          access: 'Allow'
          protocol: 'Tcp'
          sourcePortRange: '*'
          sourceAddressPrefix: '10.80.0.0/16'
          destinationPortRange: '3389'
          destinationAddressPrefix: '10.44.0.0/24'
        }
      }
    ]
  }
}

resource nsgPrivateEndpoints 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-cad-viz-private-endpoints'
  location: location
  tags: tags
  properties: {
    securityRules: []
  }
}

// Regional pool (no zones): a Standard NAT gateway without a zone, like the pool.
resource natPublicIp 'Microsoft.Network/publicIPAddresses@2025-05-01' = {
  name: 'pip-cad-viz-nat'
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
  name: 'ng-cad-viz'
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
  name: 'vnet-cad-viz'
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.44.0.0/16'
      ]
    }
    // Subnets inline, so a redeployment never tries to delete them.
    subnets: [
      {
        name: 'snet-workload'
        properties: {
          addressPrefix: '10.44.0.0/24'
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
          addressPrefix: '10.44.1.0/27'
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
  name: 'id-cad-viz'
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

// ---------------------------------------------------------------- key vault and encryption
// RBAC authorization, soft delete, purge protection and a firewall that denies by default.

// Globally unique and stable per resource group: at most 24 characters.
var vaultName = 'kv-cad-viz-${uniqueString(resourceGroup().id)}'

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
    name: 'link-vnet-cad-viz'
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
  name: 'pep-cad-viz-vault'
  location: location
  tags: tags
  properties: {
    subnet: {
      id: vnet::privateEndpointSubnet.id
    }
    customNetworkInterfaceName: 'pep-cad-viz-vault-nic'
    privateLinkServiceConnections: [
      {
        name: 'pep-cad-viz-vault'
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
// Flexible orchestration, Standard_NV12ads_A10_v5, image windows-2022. No public IPs on the instances.

resource vmss 'Microsoft.Compute/virtualMachineScaleSets@2025-11-01' = {
  // checkov:skip=CKV_AZURE_95: checkov fails every Flexible scale set here; automatic OS image upgrades would also swap the image under the GPU driver and CUDA stack. Roll out a new image by redeploying after testing the driver
  // checkov:skip=CKV_AZURE_178: Windows pool: there is no SSH; sign-in uses the adminPassword parameter (secure, no default) over the spec's inbound rules only
  name: 'vmss-cad-viz'
  location: location
  tags: tags
  sku: {
    name: 'Standard_NV12ads_A10_v5'
    tier: 'Standard'
    capacity: 0
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
    scaleInPolicy: {
      rules: [
        'Default'
      ]
      forceDeletion: false
    }
    virtualMachineProfile: {
      osProfile: {
        computerNamePrefix: 'cad-viz'
        adminUsername: adminUsername
        adminPassword: adminPassword
        windowsConfiguration: {
          provisionVMAgent: true
          enableAutomaticUpdates: true
          patchSettings: {
            patchMode: 'AutomaticByOS'
          }
        }
        allowExtensionOperations: true
      }
      storageProfile: {
        imageReference: {
          publisher: 'MicrosoftWindowsServer'
          offer: 'WindowsServer'
          sku: '2022-datacenter-azure-edition'
          version: 'latest'
        }
        osDisk: {
          createOption: 'FromImage'
          caching: 'ReadWrite'
          diskSizeGB: 256
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
            name: 'nic-cad-viz'
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
            // GPU driver: grid (NvidiaGpuDriverWindows), driver 573.96
            name: 'NvidiaGpuDriverWindows'
            properties: {
              publisher: 'Microsoft.HpcCompute'
              type: 'NvidiaGpuDriverWindows'
              typeHandlerVersion: '1.10'
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
// Profiles: the default first, then each recurring profile. A recurring profile has no end;
// it applies until the next one starts, so every schedule has a start and a restore profile.
resource autoscale 'Microsoft.Insights/autoscaleSettings@2022-10-01' = {
  name: 'as-cad-viz'
  location: location
  tags: tags
  properties: {
    name: 'as-cad-viz'
    enabled: true
    targetResourceUri: vmss.id
    profiles: [
      // Applies whenever no recurring profile has started.
      {
        name: 'default'
        capacity: {
          minimum: '0'
          maximum: '10'
          default: '0'
        }
        rules: []
      }
      // Schedule `office-hours` starts.
      {
        name: 'office-hours'
        capacity: {
          minimum: '10'
          maximum: '10'
          default: '10'
        }
        recurrence: {
          frequency: 'Week'
          schedule: {
            timeZone: 'W. Europe Standard Time'
            days: [
              'Monday'
              'Tuesday'
              'Wednesday'
              'Thursday'
              'Friday'
            ]
            hours: [
              7
            ]
            minutes: [
              30
            ]
          }
        }
        rules: []
      }
      // Schedule `evening-on-call` starts.
      {
        name: 'evening-on-call'
        capacity: {
          minimum: '2'
          maximum: '2'
          default: '2'
        }
        recurrence: {
          frequency: 'Week'
          schedule: {
            timeZone: 'W. Europe Standard Time'
            days: [
              'Monday'
              'Tuesday'
              'Wednesday'
              'Thursday'
              'Friday'
            ]
            hours: [
              18
            ]
            minutes: [
              30
            ]
          }
        }
        rules: []
      }
      // Schedule `evening-on-call` ends: back to the default limits (a recurring profile has no end of its own).
      {
        name: 'evening-on-call (end)'
        capacity: {
          minimum: '0'
          maximum: '10'
          default: '0'
        }
        recurrence: {
          frequency: 'Week'
          schedule: {
            timeZone: 'W. Europe Standard Time'
            days: [
              'Monday'
              'Tuesday'
              'Wednesday'
              'Thursday'
              'Friday'
            ]
            hours: [
              22
            ]
            minutes: [
              0
            ]
          }
        }
        rules: []
      }
    ]
    notifications: [
      {
        operation: 'Scale'
        email: {
          sendToSubscriptionAdministrator: false
          sendToSubscriptionCoAdministrators: false
          customEmails: [
            'eng-it@example.com'
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
  name: 'log-cad-viz'
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

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: 'ag-cad-viz'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'cad-viz'
    enabled: true
    emailReceivers: [
      {
        name: 'email-1'
        emailAddress: 'eng-it@example.com'
        useCommonAlertSchema: true
      }
    ]
  }
}

// More than a tenth of the pool's VMs have been unavailable for 15 minutes (host or health failures).
resource alertVmAvailability 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: 'alert-cad-viz-vm-availability'
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

// Monthly budget for this resource group, in the billing currency (the spec says USD).
resource budget 'Microsoft.Consumption/budgets@2024-08-01' = {
  name: 'budget-cad-viz'
  properties: {
    category: 'Cost'
    amount: 6000
    timeGrain: 'Monthly'
    timePeriod: {
      startDate: budgetStartDate
    }
    notifications: {
      actual50: {
        enabled: true
        operator: 'GreaterThanOrEqualTo'
        threshold: 50
        thresholdType: 'Actual'
        contactEmails: [
          'eng-it@example.com'
        ]
        contactGroups: [
          actionGroup.id
        ]
      }
      actual80: {
        enabled: true
        operator: 'GreaterThanOrEqualTo'
        threshold: 80
        thresholdType: 'Actual'
        contactEmails: [
          'eng-it@example.com'
        ]
        contactGroups: [
          actionGroup.id
        ]
      }
      actual100: {
        enabled: true
        operator: 'GreaterThanOrEqualTo'
        threshold: 100
        thresholdType: 'Actual'
        contactEmails: [
          'eng-it@example.com'
        ]
        contactGroups: [
          actionGroup.id
        ]
      }
    }
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
