// GPU pool `dev-notebook`, rendered by gpuform from dev-notebook-t4.yaml.
// Generated file: change the spec and run `gpuform render` instead of editing it.
// Sections: parameters, network, identity, key vault and encryption, compute, autoscale,
// monitoring, outputs. azuredeploy.json is the same deployment as ARM JSON.
targetScope = 'resourceGroup'

metadata name = 'dev-notebook'

// ---------------------------------------------------------------- parameters

@description('Region of every resource. main.bicepparam sets the spec\'s region (westeurope).')
param location string = resourceGroup().location

@description('Admin user name of the VMs.')
param adminUsername string = 'azureuser'

@description('SSH public key of the admin user (OpenSSH format). Password sign-in is disabled.')
param sshPublicKey string = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'

@description('First day of the month the budget starts (YYYY-MM-01). Azure refuses to change the start date of an existing budget: on later deployments pass the date the budget was created with.')
param budgetStartDate string = utcNow('yyyy-MM-01')

var tags = {
  'costCenter': 'cc-3301'
  'env': 'dev'
  'project': 'vision-lab'
  'team': 'applied-ml'
}

// ---------------------------------------------------------------- network
// One VNet, a workload subnet and a private endpoint subnet. Subnets have no default outbound
// access; the NAT gateway gives the VMs egress (the GPU driver extension downloads the driver).

resource nsgWorkload 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-dev-notebook-workload'
  location: location
  tags: tags
  properties: {
    // Only the spec's inbound allow rules; Azure's default rules deny all other inbound traffic.
    securityRules: [
      {
        name: 'ssh-from-vpn'
        properties: {
          priority: 1000
          direction: 'Inbound'
          access: 'Allow'
          protocol: 'Tcp'
          sourcePortRange: '*'
          sourceAddressPrefix: '10.60.0.0/16'
          destinationPortRange: '22'
          destinationAddressPrefix: '10.43.0.0/26'
        }
      }
      {
        name: 'jupyter-from-vpn'
        properties: {
          priority: 1010
          direction: 'Inbound'
          access: 'Allow'
          protocol: 'Tcp'
          sourcePortRange: '*'
          sourceAddressPrefix: '10.60.0.0/16'
          destinationPortRange: '8888'
          destinationAddressPrefix: '10.43.0.0/26'
        }
      }
    ]
  }
}

resource nsgPrivateEndpoints 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-dev-notebook-private-endpoints'
  location: location
  tags: tags
  properties: {
    securityRules: []
  }
}

// Regional pool (no zones): a Standard NAT gateway without a zone, like the pool.
resource natPublicIp 'Microsoft.Network/publicIPAddresses@2025-05-01' = {
  name: 'pip-dev-notebook-nat'
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
  name: 'ng-dev-notebook'
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
  name: 'vnet-dev-notebook'
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.43.0.0/24'
      ]
    }
    // Subnets inline, so a redeployment never tries to delete them.
    subnets: [
      {
        name: 'snet-workload'
        properties: {
          addressPrefix: '10.43.0.0/26'
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
          addressPrefix: '10.43.0.64/27'
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
  name: 'id-dev-notebook'
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
var vaultName = 'kv-dev-not-${uniqueString(resourceGroup().id)}'

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
    name: 'link-vnet-dev-notebook'
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
  name: 'pep-dev-notebook-vault'
  location: location
  tags: tags
  properties: {
    subnet: {
      id: vnet::privateEndpointSubnet.id
    }
    customNetworkInterfaceName: 'pep-dev-notebook-vault-nic'
    privateLinkServiceConnections: [
      {
        name: 'pep-dev-notebook-vault'
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

// ---------------------------------------------------------------- dev box
// autoShutdown on one instance: a standalone VM, Standard_NC4as_T4_v3, image ubuntu-22.04, that is
// stopped (deallocated) at 19:00 and started at 08:00 (W. Europe Standard Time). Deallocation keeps
// the OS and data disks (home directory, notebooks, the installed driver); a stopped VM pays
// only for its disks. No autoscale setting: there is nothing to scale.

resource vmNic 'Microsoft.Network/networkInterfaces@2025-05-01' = {
  name: 'nic-vm-dev-notebook'
  location: location
  tags: tags
  properties: {
    // No public IP: reach the box over the spec's inbound rules (VPN, peering, Bastion).
    enableAcceleratedNetworking: true
    enableIPForwarding: false
    ipConfigurations: [
      {
        name: 'ipconfig1'
        properties: {
          primary: true
          privateIPAllocationMethod: 'Dynamic'
          subnet: {
            id: vnet::workloadSubnet.id
          }
        }
      }
    ]
  }
}

resource vm 'Microsoft.Compute/virtualMachines@2025-11-01' = {
  // checkov:skip=CKV_AZURE_50: the GPU driver is installed by the NVIDIA/AMD VM extension (Microsoft.HpcCompute); a GPU dev box without it has no usable GPU
  name: 'vm-dev-notebook'
  location: location
  tags: tags
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identity.id}': {}
    }
  }
  properties: {
    hardwareProfile: {
      vmSize: 'Standard_NC4as_T4_v3'
    }
    osProfile: {
      computerName: 'dev-notebook'
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
        name: 'osdisk-vm-dev-notebook'
        createOption: 'FromImage'
        caching: 'ReadWrite'
        diskSizeGB: 128
        managedDisk: {
          storageAccountType: 'Premium_LRS'
        }
        // Kept even if the VM is deleted; stopping never touches disks.
        deleteOption: 'Detach'
      }
    }
    securityProfile: {
      encryptionAtHost: true
      // Explicit: Trusted Launch by default would turn Secure Boot on under the GPU driver.
      securityType: 'Standard'
    }
    networkProfile: {
      networkInterfaces: [
        {
          id: vmNic.id
          properties: {
            primary: true
            deleteOption: 'Detach'
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
  }
}

// GPU driver: cuda (NvidiaGpuDriverLinux), CUDA 12.8
resource vmExtension0 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'NvidiaGpuDriverLinux'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.HpcCompute'
    type: 'NvidiaGpuDriverLinux'
    typeHandlerVersion: '1.6'
    autoUpgradeMinorVersion: true
    settings: {}
  }
}

// Stop: the DevTest Labs auto-shutdown schedule deallocates the VM every day at 19:00
// (W. Europe Standard Time). Its name must be shutdown-computevm-<VM name>.
resource vmShutdown 'Microsoft.DevTestLab/schedules@2018-09-15' = {
  name: 'shutdown-computevm-vm-dev-notebook'
  location: location
  tags: tags
  properties: {
    status: 'Enabled'
    taskType: 'ComputeVmShutdownTask'
    dailyRecurrence: {
      time: '1900'
    }
    timeZoneId: 'W. Europe Standard Time'
    notificationSettings: {
      // 30 minutes' warning to the alert emails (the mail links to postpone the shutdown).
      status: 'Enabled'
      timeInMinutes: 30
      emailRecipient: 'vision-lab@example.com'
      notificationLocale: 'en'
    }
    targetResourceId: vm.id
  }
}

// Start: a Consumption Logic App starts the VM at 08:00 (W. Europe Standard Time) on Monday, Tuesday, Wednesday, Thursday, Friday,
// calling the VM's start operation with its system-assigned identity. The time zone of a
// Recurrence trigger applies only with a startTime (without offset); the date is in the past.
resource vmStart 'Microsoft.Logic/workflows@2019-05-01' = {
  name: 'logic-dev-notebook-start'
  location: location
  tags: tags
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    state: 'Enabled'
    // Workflow Definition Language (schema 2016-06-01); `$schema` is only needed for a
    // definition referenced externally, and leaving it out keeps every cloud host name out.
    definition: {
      contentVersion: '1.0.0.0'
      triggers: {
        Start_on_schedule: {
          type: 'Recurrence'
          recurrence: {
            frequency: 'Week'
            interval: 1
            startTime: '2025-01-01T00:00:00'
            timeZone: 'W. Europe Standard Time'
            schedule: {
              weekDays: [
                'Monday'
                'Tuesday'
                'Wednesday'
                'Thursday'
                'Friday'
              ]
              hours: [
                8
              ]
              minutes: [
                0
              ]
            }
          }
        }
      }
      actions: {
        Start_VM: {
          type: 'Http'
          runAfter: {}
          inputs: {
            method: 'POST'
            // the cloud's own Resource Manager endpoint (environment()), never a literal host
            uri: uri(environment().resourceManager, '${vm.id}/start?api-version=2025-11-01')
            authentication: {
              type: 'ManagedServiceIdentity'
              audience: environment().resourceManager
            }
          }
        }
      }
      outputs: {}
    }
  }
}

// Desktop Virtualization Power On Contributor: start and read this VM only (no deallocate, write or delete).
resource vmStartRole 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(vm.id, vmStart.id, '489581de-a3bd-480d-9518-53dea7416b33')
  scope: vm
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '489581de-a3bd-480d-9518-53dea7416b33')
    principalId: vmStart.identity.principalId
    principalType: 'ServicePrincipal'
    description: 'The start workflow of the dev box starts it on working days.'
  }
}

// ---------------------------------------------------------------- monitoring

resource workspace 'Microsoft.OperationalInsights/workspaces@2025-02-01' = {
  name: 'log-dev-notebook'
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

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: 'ag-dev-notebook'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'dev-notebook'
    enabled: true
    emailReceivers: [
      {
        name: 'email-1'
        emailAddress: 'vision-lab@example.com'
        useCommonAlertSchema: true
      }
    ]
  }
}

// Monthly budget for this resource group, in the billing currency (the spec says USD).
resource budget 'Microsoft.Consumption/budgets@2024-08-01' = {
  name: 'budget-dev-notebook'
  properties: {
    category: 'Cost'
    amount: 800
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
          'vision-lab@example.com'
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
          'vision-lab@example.com'
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
          'vision-lab@example.com'
        ]
        contactGroups: [
          actionGroup.id
        ]
      }
    }
  }
}

// ---------------------------------------------------------------- outputs

@description('Resource id of the dev box VM.')
output vmId string = vm.id

@description('Principal id of the pool\'s managed identity (for more role assignments).')
output identityPrincipalId string = identity.properties.principalId

@description('Client id of the pool\'s managed identity (for SDK sign-in on the VMs).')
output identityClientId string = identity.properties.clientId

@description('URI of the Key Vault.')
output vaultUri string = vault.properties.vaultUri

@description('Resource id of the Log Analytics workspace.')
output logAnalyticsWorkspaceId string = workspace.id
