// GPU pool `variant-devbox-windows`, rendered by gpuform from devbox-windows.yaml.
// Generated file: change the spec and run `gpuform render` instead of editing it.
// Sections: parameters, network, identity, key vault and encryption, compute, autoscale,
// monitoring, outputs. azuredeploy.json is the same deployment as ARM JSON.
targetScope = 'resourceGroup'

metadata name = 'variant-devbox-windows'

// ---------------------------------------------------------------- parameters

@description('Region of every resource. main.bicepparam sets the spec\'s region (westeurope).')
param location string = resourceGroup().location

@description('Admin user name of the VMs.')
param adminUsername string = 'vizadmin'

@description('Admin password of the Windows VMs (12-123 characters, three of: lower case, upper case, digit, symbol). Pass it at deployment time; it has no default.')
@secure()
@minLength(12)
@maxLength(123)
param adminPassword string

var tags = {
  'costCenter': 'cc-1'
  'env': 'dev'
  'project': 'p'
  'team': 't'
}

// ---------------------------------------------------------------- network
// One VNet, a workload subnet and a private endpoint subnet. Subnets have no default outbound
// access; the NAT gateway gives the VMs egress (the GPU driver extension downloads the driver).

resource nsgWorkload 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-devbox-windows-workload'
  location: location
  tags: tags
  properties: {
    // Only the spec's inbound allow rules; Azure's default rules deny all other inbound traffic.
    securityRules: [
      {
        name: 'rdp-from-vpn'
        properties: {
          priority: 1000
          direction: 'Inbound'
          access: 'Allow'
          protocol: 'Tcp'
          sourcePortRange: '*'
          sourceAddressPrefix: '10.60.0.0/16'
          destinationPortRange: '3389'
          destinationAddressPrefix: '10.72.0.0/26'
        }
      }
    ]
  }
}

resource nsgPrivateEndpoints 'Microsoft.Network/networkSecurityGroups@2025-05-01' = {
  name: 'nsg-variant-devbox-windows-private-endpoints'
  location: location
  tags: tags
  properties: {
    securityRules: []
  }
}

// Single-zone pool: the NAT gateway and its public IP live in zone 1, with the VMs they serve.
resource natPublicIp 'Microsoft.Network/publicIPAddresses@2025-05-01' = {
  name: 'pip-variant-devbox-windows-nat'
  location: location
  tags: tags
  zones: [
    '1'
  ]
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
  name: 'ng-variant-devbox-windows'
  location: location
  tags: tags
  zones: [
    '1'
  ]
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
  name: 'vnet-variant-devbox-windows'
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.72.0.0/24'
      ]
    }
    // Subnets inline, so a redeployment never tries to delete them.
    subnets: [
      {
        name: 'snet-workload'
        properties: {
          addressPrefix: '10.72.0.0/26'
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
          addressPrefix: '10.72.0.64/27'
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
  name: 'id-variant-devbox-windows'
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

// Key Vault Crypto Service Encryption User: The disk encryption set wraps and unwraps disk keys with the customer-managed key.
resource desCryptoUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(cmkKey.id, des.id, 'e147488a-f6f5-4113-8e2d-b22465e65bf6')
  scope: cmkKey
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'e147488a-f6f5-4113-8e2d-b22465e65bf6')
    principalId: des.identity.principalId
    principalType: 'ServicePrincipal'
    description: 'The disk encryption set wraps and unwraps disk keys with the customer-managed key.'
  }
}

// Monitoring Metrics Publisher: The pool's identity publishes GPU telemetry through the data collection rule.
resource identityGpuDcrPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(gpuDcr.id, identity.id, '3913510d-42f4-4d42-a2a6-6cf4e5e8ba81')
  scope: gpuDcr
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '3913510d-42f4-4d42-a2a6-6cf4e5e8ba81')
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
    description: 'The pool\'s identity publishes GPU telemetry through the data collection rule.'
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
    name: 'link-vnet-variant-devbox-windows'
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
  name: 'pep-variant-devbox-windows-vault'
  location: location
  tags: tags
  properties: {
    subnet: {
      id: vnet::privateEndpointSubnet.id
    }
    customNetworkInterfaceName: 'pep-variant-devbox-windows-vault-nic'
    privateLinkServiceConnections: [
      {
        name: 'pep-variant-devbox-windows-vault'
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

// Customer-managed key for the disks: rotated yearly, each version expires after two years.
resource cmkKey 'Microsoft.KeyVault/vaults/keys@2025-05-01' = {
  // checkov:skip=CKV_AZURE_112: software-protected RSA key: the spec's vault SKU is standard; HSM-backed keys need security.keyVault.sku: premium
  parent: vault
  name: 'disk-cmk'
  tags: tags
  properties: {
    kty: 'RSA'
    keySize: 3072
    keyOps: [
      'wrapKey'
      'unwrapKey'
    ]
    attributes: {
      enabled: true
    }
    rotationPolicy: {
      attributes: {
        expiryTime: 'P2Y'
      }
      lifetimeActions: [
        {
          trigger: {
            timeAfterCreate: 'P1Y'
          }
          action: {
            type: 'rotate'
          }
        }
        {
          trigger: {
            timeBeforeExpiry: 'P30D'
          }
          action: {
            type: 'notify'
          }
        }
      ]
    }
  }
}

// The Compute API takes only a versioned key URL (keyUriWithVersion), "regardless of
// rotationToLatestKeyVersionEnabled" (KeyForDiskEncryptionSet, Microsoft.Compute 2025-01-02);
// with rotation on, the set still moves to each new key version on its own.
resource des 'Microsoft.Compute/diskEncryptionSets@2025-01-02' = {
  name: 'des-variant-devbox-windows'
  location: location
  tags: tags
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    encryptionType: 'EncryptionAtRestWithCustomerKey'
    rotationToLatestKeyVersionEnabled: true
    activeKey: {
      keyUrl: cmkKey.properties.keyUriWithVersion
      sourceVault: {
        id: vault.id
      }
    }
  }
}

// ---------------------------------------------------------------- dev box
// autoShutdown on one instance: a standalone VM, Standard_NV12ads_A10_v5, image windows-2022, that is
// stopped (deallocated) at 20:30 and started at 07:15 (GMT Standard Time). Deallocation keeps
// the OS and data disks (home directory, notebooks, the installed driver); a stopped VM pays
// only for its disks. No autoscale setting: there is nothing to scale.
// A VM lives in one zone: the first of compute.zones.

resource vmNic 'Microsoft.Network/networkInterfaces@2025-05-01' = {
  name: 'nic-vm-variant-devbox-windows'
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
  // checkov:skip=CKV_AZURE_178: Windows dev box: there is no SSH; sign-in uses the adminPassword parameter (secure, no default) over the spec's inbound rules only
  name: 'vm-variant-devbox-windows'
  location: location
  tags: tags
  zones: [
    '1'
  ]
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identity.id}': {}
    }
  }
  properties: {
    hardwareProfile: {
      vmSize: 'Standard_NV12ads_A10_v5'
    }
    osProfile: {
      computerName: 'variant-devbox'
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
        name: 'osdisk-vm-variant-devbox-windows'
        createOption: 'FromImage'
        caching: 'ReadWrite'
        diskSizeGB: 128
        managedDisk: {
          storageAccountType: 'Premium_LRS'
          diskEncryptionSet: {
            id: des.id
          }
        }
        // Kept even if the VM is deleted; stopping never touches disks.
        deleteOption: 'Detach'
      }
      dataDisks: [
        {
          lun: 0
          name: 'datadisk-vm-variant-devbox-windows-0'
          createOption: 'Empty'
          diskSizeGB: 256
          caching: 'ReadOnly'
          managedDisk: {
            storageAccountType: 'Premium_LRS'
            diskEncryptionSet: {
              id: des.id
            }
          }
          deleteOption: 'Detach'
        }
      ]
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
  dependsOn: [
    // the disk encryption set must be able to use the key before disks are created
    desCryptoUser
  ]
}

// GPU driver: grid (NvidiaGpuDriverWindows), driver 573.96
resource vmExtension0 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'NvidiaGpuDriverWindows'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.HpcCompute'
    type: 'NvidiaGpuDriverWindows'
    typeHandlerVersion: '1.10'
    autoUpgradeMinorVersion: true
    settings: {}
  }
}

// GPU collector: writes C:\ProgramData\gpuform\gpuform-gpu.ps1 (carried in the command, gzip + base64) and registers the SYSTEM scheduled tasks gpuform-gpu-collect (every minute) and gpuform-gpu-health (127.0.0.1:8711).
resource vmExtension1 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'GpuCollector'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.Compute'
    type: 'CustomScriptExtension'
    typeHandlerVersion: '1.10'
    autoUpgradeMinorVersion: true
    settings: {
      commandToExecute: 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "$d=Join-Path $env:ProgramData \'gpuform\';$null=New-Item -ItemType Directory -Force -Path $d;$null=icacls $d /setowner \'*S-1-5-32-544\' /T /C;$null=icacls $d /inheritance:r /grant:r \'*S-1-5-18:(OI)(CI)F\' \'*S-1-5-32-544:(OI)(CI)F\' \'*S-1-5-32-545:(OI)(CI)RX\' /T /C;$f=Join-Path $d \'gpuform-gpu.ps1\';$b=[Convert]::FromBase64String(\'H4sIAAAAAAAC/8Vba3PbOLL9rl+BcukWyRmRkZzJTOLU1MTxI9GOX9eSk921tQ5DQjYTitSQlBNvkv9+TzcAEtTDmbu7VZtU2RLZbDSAfpw+oOdhEc7czuUZ/ZaVLNyzvEyqJM/Er6LvTS7Lqkiym0l3L5/NwizGVcfpbZAfQD7Jqkl3t7ihxzfJbRu5s7yo8P3pL4NBx+uMZOWPMFxUHeexFP4bWZT0wHane1AUebEb0fNnhZzKQmaRJFtGVT53Ot3/Xcjinr5XyUyWVTib95Islp97i0US9zKY0FtUSZr8MyQVwc180ZvJWV7cB4tSxuZzlVdh2qvkbC6LsFoUkgXn+SdZBHERfurJKAokmVIGiyzKi0JGlYyDuzyF3lRqBXGR3Mni+k6ZD+sO82IW0kSdqLzrZfmtDGNZ4MMiS6oSAmdFfoN12g+rEFLJVLhdmd3tWJc98UUsXxPfhExLiTvO3s6VdcMR3zrd8zynIf+SJ5l/Fla3ojWKg5lNYRYGP8pv9pPCHvfV2cXh6fnxNX5fH52+ut4fntfjr7nX2GENxsM7aX5TsjWjKqzkA8OMxrvjg40D1XcfGKqkEXis36Wc74f3JXkaj5ySqzzu9zvdYXaHj5ev0vx9WHvD3iKlzR5m03yyswORsEjCrNKXO92LKlp9CKsox3C2UXWfynLi7MYfFmU1zi8y2vwSbrBblouZrL87bMpsDlVb9/jnHx/7ceyMndevd2aznbJ0/u5s0WDTpxA5kZ/80/cf4F9idF/CJYOx/FwFF+PDpwfwvBgx6XanIdbC6yA208Uso/m+cDsOWfVKZuTCMnZ6cI58Nl8gBOnzm9mQr50VSV4k1T19Pvg8Zz9+NV+U9B2/hxQ8+vMFQgghTx9PEEh09aKJpTNZRDKr6OoxR9EFAuo4edlcGFNQ6CvjJrb2SOcZxdY+QustGxJFF01Y0ZW/JjGHfqm/7CEx8Od9jjGdIXiSizisv3Yc8jc1m9cyTKvbe2VPWYY30kGumSJ+ORu9QtI5yT+JL50Vvzw5fQtv7BQS5mbi0uw4fARZrZQHn8OoWnmiJ9Q24zc8CT/hPV4HXkmJz9aB6xjXaO9mwW4cj5PoY+n6A/EDTMkC/ir+R1yyo83DDI/xNSz6SEZ5Fnukup4LOc15/sntvgxLiaHfhOlCljSHboEpYvy8QOKR8eTFFzyWFzKMbjFSJBJYoL2IAxDil91ogke62SJNhS09D5G08cCL5XFooEbsIysl4eB3ec9W0Ar7GYKV9Ad7eVaFSVZClB4V1S0ZuaUT044gDaUg8VBEbJvIpwJeOJapRE0p7q/3jrYo4Nnaj2wtjUefsSzf6rXFfXuZMDB8B7Hqnyxm71Ga6iJHMcbLRXWuH/TZ4ss4X7xPacvGxT3vvMuCwbhIZq7XW84MSqnOCzs7h2keVsYbLlG8Jt3Ys/yqG1uW0mKvN3WYVfJmra3kWMtTEnxbuTRvoC//gHZaZnsoUY98meZQenmMhMoThQFwVTzccjDMIf8o/XGep40hB5/hA/rb5YSL/1FSKtvmZbI2me0n4U2Wl1USlQHKUoTARNQUFeVgfio4RD2ldEObihHURahGSs0qSnUu/E8PJb4KlNgD+J0ZBiVxyxE/iu41ftDHb57wP6BkCEc4nlKGRDW6lWkK7RHSIw3ECVXdPZdxQnkIZmVxWMSniwpJlISqYrFBhlNVW2QP4VDJk/wt4AiHoLoH5+XloZjcvCTYCV4Vl1RhIwT2BLFVu86LL4ISIiGv7V+ei1O2z3GeCxhCZYYWDs9kFEMlKUJQud3r4OBzJOfsqzojehRGCKRczXAetGeNiYbxOD/I4t3yPotcLKDkESxJnvuqYBPy8+BtmFS0T5+TykU17vc5DHgp6PbvSZq6nqhn2TinPc+fNs0zTmKVLLISNYWSz+O+KNXEVvRgODKDvhl9NHnYX6LqG8U0S32J1dRxcIjd9E/ukjgJR7Nkbe14M9wf7l6Pjod2zK2XoBSGXcIE4Cq6irsWvqGnlJMopKM+P96+ytgCv5wlgfwsHa+38piGfBRMpXDUkFiDYp4XnKyuTt7AgBVFVCCXqkNjoMnkYwBtNZR/lABehKkaN7JnHCnHimaUUanWmj7CWRpT+BbGFyMYnFXpPdWIJEPA8AJDS0v3LA54yM35k0Y8TGQau12VGepMNelSdjFz0Ukyk0LLCZ+M1F+Cs5H5UOTAL1Uiy0t+fmIDBKP4uw8FXDAbv3ScZZuHs7ikBBFhC2QbxddI2kkgFHwoucUoi4gd1nKw4fH+6PpweHRg7eVUF26I94TS7tVrMFWT3rixUyteteWu2lLUpqxalhb+efgJqVnXpsMin/l/gbXtEKf/PDpMWlOedKIsUL6aVHkiq+CtfH8u/wDsqJAlVZZ1nduqmu88ejT4+Vmw/eSnQP9+BLAQwnXDR0AbSFeRfBQpSPxbOE983af9ut3fHvj9bb8/oAqBEYPX3KeVhMxcgEelhIAk5XAjhN39fG+AkrpEcE2l0u0+dR2FLCnT8z0sGDLKPM8AIzwzvQrFmkraaqEcniLDYnazc7bFZV22EnXX9TyvSb4u1YppkoVpyrmVn9lLcxoSa3rZ6KbEgPV7i1ZA7qYpgQZXuQXcg6xiADt96hlXdZWta3Z1tTyZaFzybQupNyACaVThVCyDhTIE3YDDqkLSLQLO3wRm+jpCi4DStz/joZ29i/1doZXvXJU/uJd9/1kw+dFzbN86JmFE42AiHohB1WKo9sMyNIH/0LKxuTNVP1XS9lbLwP758M3B+fXBm4OTsQrG1cc2h9DDmrAJb2+B5hvMA7RjFgK9EoGejumXkSESRZmoXXkogbemqD3UPL2hC3pgErU2zgdejZrXtkmtxLCEXtkECzEYk9TYyWyog1v4e2lYlgweAbseb1+fcs+J7VOO7wVHYVm9RC29mNNUAqtrp+8tENIeBh2bR+ngGEUJpRCtmsem6lWaJilmTrv6RYBW0fhVF2zgFeQKVD1ZmBvZXRrHs49060jeyZT9YdADQfZcMPIjc2jP2AjYeZRHjY1r/AjzPbjjPThkU16H5W0VonsRxrZ2mQV7tg48195+bRCi8iUT4Mt+r2o89eb6QlNxZowejHxda2a2p17+A1E6+cG9inWgal0/wt+YJ2wFrA3neLI0aD0CMsQiA4Lb09a41CcodV/FCHyjmaWPPUf98OrGoOd4bZTHWRHOnEkr/smpe8Q5fVKNtU7dSB/NnBl9GhGVR2kudOOr1apR2hQEiOZI0BD9UWy9K95lW2tT9O58LgGrTY7WZrRS9GqjhpY+xVxdtYqG51F2azxGHES31MRUF01tPuKZunZ8eh2qTENYJPjn+H4uxT73PiB44Gx5QXGnAl7xiT0LqXwliI3OlOoj1WI9NIEc9ECaidIXGa0JJeaYe47dR+hrvLTWw865vFmkYcEU4HsQExyGnRYbxqFE0+oYTkzwvza02M+o84Ixr9GOUajCoYk3E/U/nQ1att4Rs+Z1DLFmBGsTOzbNJlRbqy5Q8JR1ltwA9j4nsc9CAHv4rFfLrlGiUQJ9M2q8232KxlmbKm3JlXbL9/8gMt0HD/Or4tW3egJXp0xi/6rJ7C27tOiM91AvugT3uVObIlIBN0070xPcjPTE2e74tbdD5E8F8KubFkWqC0ZwcOr4N0d1FuB2yrUUg/Z9RAMAXFGE98QUrMIIXosIkMT0Jw064SWxwjpFJqDIdg3oKOdpUlHQ/oaoZXAM1EsJkEWDEd12Oa+sybHIraoUUmpV+FvlLm5DBgPy70i3P+TS2A/l0YaeFS1/XGGKkPGRL72OZnBFSxz3ticdzeiu3Ho86awyvO1BDM00vfwJY7SY3zUmNdJPamlDCz8k/TOkbcpYPKj7F0g3hPL6xWmkn0K6TTg/uJTPIF6z0a31QjQGqg51DEMtVgT4cqfFWlsLPuhPOrbjNc+SZ3YUmS3a++TkH52OJreXdpApJlO42w8Ryr28y5N4wpHDrY2reWOh0iZ5muc1jZmJFnglQDcILvWk9tU6hsjlVfl36RkKeypoKGc/apRusJ+3FDlrgSyCojsrb8x5EWs3Y95UPKZQVy/7k+ZYaKvJM0KC4cGuds0UmOVS6KO8CY5kdkPQF8qe9JU6NR7fHS3eq4rv9nvq/jcuk7QP2iR7XehxK8X50xBZmBB4fUKX5ZRRHdGkrBdL694KbYPTm61XpQtfrE2vKcvGMzc5ZMsPG99Q0+3UnYKambW/oL5awMFCObA8Uex6fcZwaQ5eiIynM0Z/lpQoSzeOvm1OYyYW3co3zNkM3bA3sbyl1eraRnl0DlAbJdAhlVvsrhZgEzYTpk84XTaIaWEL5zh0GHd8HNN5E2MdYowVrQJP5WE73Vu95Ca4Nq6CaJ1xWPNlB7PU8NzhH9qtZPt0RlQG+BNaeS6sB/XH56L2Rh4bUWAtPrRWjOjWYgmlgucYQMz5LiNQERB0taEPQNgainbhZdWfGN55sBElJeRZq+ady3kaRlJbxoI9FTEWLll97Di/az1DWe57c69BVU/vRjNJHBvk06nCzUikdObs+vXxs/eAj1kOlANCMinH6OM2SWOFs1sroT1Yd3Uqsn5QK/gwcapQSRyy62CogI7sqOhbGe4njT9IynRl/7iKvzz91nU0y8K3KBWoKZMzn6OK30l/jbE0zCG2grGF7g3qaqLd16Jj+g0JM1jmYFT4WDREzSKvoRrc73qbt4mT7HT5/QwFkAMOPh/4s2E7OHzVnbV0gU7zG+iRuntUGtaSHxSzU0TRLTethmwQvoBp5EpAS+rMt1Q7we81aEgfmPzARAllKL1vrNBa6xcuGEnrUJw73jUHLu6T/mM6589ujaC9MyN0onpr3O5emsissqgidQFsZCSxSg0X+oS5UH2XVCzfKpnKJEfVQlgEQ28SiUoE6Fqov0KSKk29uqvj41rz3gQ106O94dDrfLqlhsvlBasxjCJqSQ8TqlRNDLPXcFEsyFhIfcI1h5mL93j0o+pMbrWvqoVCT5rHHIWUPGhqL++JQXKR7NHbp0nEYFsJj3RF6N4y5fFQylUrU/J7VSrACA+RQdsK1Tinv9s4ZCSLuwQBeZGFdwApxA0xKKF3kqw+eO2KNVZvvR6Pzx4NggFVZhrRE9oMYjB0dPpEE+yIsJndow9LEgqE8bEkLY8GZZ4WyVT/tiMi4q7pIvMjnnGVgDM155S4J+DX/MkoWZaiAZSUPVQtdZguylvXZrksDr32W82it1lt3UbT0krNtVCzKTN6v007Fn2VxSo/lsxV9rcJiOEZqkmhDoCP8nz+Pow+9sQmieHZ3c9GyrPiMF0bK/T0KI8+yqoMxtH8SBtGhmBlLLOhIFCnz55tP3isbrqOqK1FljqDlfc69IG0khdYPhAGQR//BzvW+ITVV+KzpBWOG+ho9eYMwmobap4xDc6QaajK8dJYmQvSwW5EB+FYBrW7NNNmCAZ6ZnoK0qmbNCleGX+UotYL/xgn10mpk/Og39fHWsv+MVTcxRIb1xNrPaaU6bQNoNThr15GaiaCeTlw/j/MHGnofYeg41U7G+ljWgXK+FRw+SKdlZKRvK57+fx+HRRYemYfmAshVSlyhWaoDKR0OS/b09146q1epSi50+cXOK7uBkH/il/TLOk7nycTHz2bcVrcQiUF8z7lM4iTPKOuvkBZRnUCeOK3P4jmyJGl7sXL+zkODxhpSfFui618t7XFPGUWJfPQhNUIjHS8QJc3DsuPZ/VNHyxIAa7QORmL3Yvx69Pz4fhvV6O/jcYHx0BTWPs8403SiRguqMLlfJGpM4DXyQ247ooKBr/BuTIYuugbYiX83YrdcDHvdPEkvwC7WfiUj0Z2Kw0uCKi0jjIG1JcDV8uKX9PlRbrDhLhLNS+gka+zuBgQ/lUU27phR7KiA5cSv601JjVHyQyt/wat27DheJFWyTyV5jynFMObDIGOJ4TPEwZbkO2a6oU5pWn+Sb0+ND3NXoYVLMdhO9wNVYaOOIbTV/CrG+teB2QxxVvRtlr4vJnkf86VjrQrR11lNGuHn6+n75goe9chB4+KhN+tqWV3RAmsB0PVHqFdFZ8SjGA1uUgAuWi/w1sPT6/QCnf3n+C/xHGeJYhrsXtDkMuhETXud1d2QN/wzetNFGC+eYFKbJnwMHtY56Mtj9Qat3nhshsiWbD12J7G1a2Q8M1+i9opbNKf8+a/5Cb2q49/l0XOPsrvMqkq8+zZs/rK9132O87133IkBbI3+VFTOcl1lKxAHZvDlGpj/YTLNLhL6JIHUCczYhhBhf0HfEdtq120W76jEth3HUZpsdxF19Z/ez3/fUUmwjWzROdBS9uhJXLrZAKl0uamXKJF9K5t2ixvy3RefZTCEumBQY2unVRgHa3eYaItYhjZhhXA0Fy76W8vGoaUvtXgf0CvQfIfXXiX/mDSIYIUuD3CmE6dzFb075kM8af0r2rm/YXeFkz+E9rUX4d8w1E4ayNU5ZhI+bLSXqkd0m9pct/UWdsO1br4AxEOsZyG9IYfCCP0HGXOHJB6nZGVcgfoLIid3BFL8Mvsujj469nB3vhgn/5cYSTOTs/H8GiTCts3v+q40UJ6Sp4yaJuR4/8B6usZhpYzAAA=\');$z=New-Object IO.Compression.GZipStream((New-Object IO.MemoryStream(,$b)),[IO.Compression.CompressionMode]::Decompress);[IO.File]::WriteAllText($f,(New-Object IO.StreamReader($z)).ReadToEnd());& $f install 1 8711;exit $LASTEXITCODE"'
    }
  }
  dependsOn: [
    vmExtension0
  ]
}

// Azure Monitor Agent: ships the GPU collector's JSON lines; signs in with the pool's user-assigned identity (mi_res_id).
resource vmExtension2 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'AzureMonitorWindowsAgent'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.Azure.Monitor'
    type: 'AzureMonitorWindowsAgent'
    typeHandlerVersion: '1.0'
    autoUpgradeMinorVersion: true
    enableAutomaticUpgrade: true
    settings: {
      authentication: {
        managedIdentity: {
          'identifier-name': 'mi_res_id'
          'identifier-value': identity.id
        }
      }
    }
  }
}

// Application health from the GPU collector (127.0.0.1): unhealthy when a GPU is missing or nvidia-smi fails. A standalone VM has no automatic repairs: the state shows as the VM's health (instance view) and the faults alert says how to recover.
resource vmExtension3 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'HealthExtension'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.ManagedServices'
    type: 'ApplicationHealthWindows'
    typeHandlerVersion: '2.0'
    autoUpgradeMinorVersion: true
    enableAutomaticUpgrade: true
    settings: {
      protocol: 'http'
      port: 8711
      requestPath: '/health'
      intervalInSeconds: 30
      numberOfProbes: 2
    }
  }
  dependsOn: [
    vmExtension0
    vmExtension1
  ]
}

// Stop: the DevTest Labs auto-shutdown schedule deallocates the VM every day at 20:30
// (GMT Standard Time). Its name must be shutdown-computevm-<VM name>.
resource vmShutdown 'Microsoft.DevTestLab/schedules@2018-09-15' = {
  name: 'shutdown-computevm-vm-variant-devbox-windows'
  location: location
  tags: tags
  properties: {
    status: 'Enabled'
    taskType: 'ComputeVmShutdownTask'
    dailyRecurrence: {
      time: '2030'
    }
    timeZoneId: 'GMT Standard Time'
    notificationSettings: {
      status: 'Disabled'
    }
    targetResourceId: vm.id
  }
}

// Start: a Consumption Logic App starts the VM at 07:15 (GMT Standard Time) on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday,
// calling the VM's start operation with its system-assigned identity. The time zone of a
// Recurrence trigger applies only with a startTime (without offset); the date is in the past.
resource vmStart 'Microsoft.Logic/workflows@2019-05-01' = {
  name: 'logic-variant-devbox-windows-start'
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
            timeZone: 'GMT Standard Time'
            schedule: {
              weekDays: [
                'Monday'
                'Tuesday'
                'Wednesday'
                'Thursday'
                'Friday'
                'Saturday'
                'Sunday'
              ]
              hours: [
                7
              ]
              minutes: [
                15
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
  name: 'log-variant-devbox-windows'
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

// ---------------------------------------------------------------- GPU monitoring
// The collector (nvidia-smi once a minute while the dev box runs; the Custom Script Extension
// installs it: systemd units on Linux, scheduled tasks on Windows) writes JSON lines to
// C:\ProgramData\gpuform\logs\gpu-*.json; the Azure Monitor Agent on the VM sends them through the data
// collection rule into the custom table GpuTelemetry_CL of the pool's workspace.

// The input stream: a `Custom-` stream, as Learn documents for JSON log files (the REST spec's
// list of known dataFlows streams names only the built-in Microsoft-* ones).
var gpuStream = 'Custom-GpuTelemetry'

resource gpuTable 'Microsoft.OperationalInsights/workspaces/tables@2025-02-01' = {
  parent: workspace
  name: 'GpuTelemetry_CL'
  properties: {
    plan: 'Analytics'
    retentionInDays: 30
    schema: {
      name: 'GpuTelemetry_CL'
      description: 'GPU telemetry from the gpuform collector: one row per GPU per minute, or one health row per VM.'
      columns: [
        {
          name: 'TimeGenerated'
          type: 'dateTime'
          description: 'When the collector sampled (UTC)'
        }
        {
          name: 'Computer'
          type: 'string'
          description: 'Host name of the VM'
        }
        {
          name: 'VmId'
          type: 'string'
          description: 'VM id from the instance metadata service'
        }
        {
          name: 'Priority'
          type: 'string'
          description: 'Spot or Regular'
        }
        {
          name: 'ExpectedGpus'
          type: 'int'
          description: 'GPUs the VM size has (whole GPUs; a partition counts as one)'
        }
        {
          name: 'GpuIndex'
          type: 'int'
          description: 'nvidia-smi index (AMD: amd-smi gpu); empty on a health row'
        }
        {
          name: 'GpuUuid'
          type: 'string'
          description: 'GPU UUID'
        }
        {
          name: 'GpuName'
          type: 'string'
          description: 'GPU model as nvidia-smi (AMD: amd-smi market_name) names it'
        }
        {
          name: 'UtilizationPercent'
          type: 'real'
          description: 'utilization.gpu (percent; AMD: gfx_activity)'
        }
        {
          name: 'MemoryUsedMiB'
          type: 'real'
          description: 'memory.used (MiB; AMD: used_vram)'
        }
        {
          name: 'MemoryTotalMiB'
          type: 'real'
          description: 'memory.total (MiB; AMD: total_vram)'
        }
        {
          name: 'TemperatureC'
          type: 'real'
          description: 'temperature.gpu (°C; AMD: hotspot, else edge)'
        }
        {
          name: 'PowerDrawW'
          type: 'real'
          description: 'power.draw (W; AMD: socket_power); empty where the driver does not report it (vGPU, GRID)'
        }
        {
          name: 'EccUncorrected'
          type: 'long'
          description: 'ecc.errors.uncorrected.volatile.total since the driver loaded (AMD: total_uncorrectable_count, amd-smi only); empty without ECC'
        }
        {
          name: 'XidErrors'
          type: 'long'
          description: 'Xid events since the previous sample (Linux: NVRM lines of the kernel log; Windows: nvlddmkm errors in the System event log); empty on AMD'
        }
        {
          name: 'XidCodes'
          type: 'string'
          description: 'Distinct Xid codes, e.g. 79,48'
        }
        {
          name: 'DriverVersion'
          type: 'string'
          description: 'NVIDIA driver version (AMD: amdgpu driver version)'
        }
        {
          name: 'CudaVersion'
          type: 'string'
          description: 'CUDA version the driver supports (AMD: the ROCm release installed, /opt/rocm/.info/version)'
        }
        {
          name: 'Status'
          type: 'string'
          description: 'ok, gpu-missing, nvidia-smi-failed, amd-smi-failed, rocm-smi-failed, no-gpu or tool-missing (AMD image without amd-smi/rocm-smi)'
        }
        {
          name: 'Healthy'
          type: 'boolean'
          description: 'What the health probe answers: false when the VM\'s GPUs are missing or the driver fails (repaired); true on tool-missing (reported, not repaired)'
        }
        {
          name: 'Message'
          type: 'string'
          description: 'What failed, on health rows'
        }
      ]
    }
  }
}

// Ingestion endpoint of the agent (public: the agent sends over HTTPS with the pool's identity;
// nothing listens on the VMs).
resource gpuDce 'Microsoft.Insights/dataCollectionEndpoints@2023-03-11' = {
  name: 'dce-variant-devbox-windows'
  location: location
  tags: tags
  kind: 'Windows'
  properties: {
    description: 'Data collection endpoint of the GPU telemetry of variant-devbox-windows.'
    networkAcls: {
      publicNetworkAccess: 'Enabled'
    }
  }
}

resource gpuDcr 'Microsoft.Insights/dataCollectionRules@2023-03-11' = {
  name: 'dcr-variant-devbox-windows-gpu'
  location: location
  tags: tags
  kind: 'Windows'
  properties: {
    description: 'GPU telemetry (JSON lines of the gpuform collector) into GpuTelemetry_CL.'
    dataCollectionEndpointId: gpuDce.id
    streamDeclarations: {
      'Custom-GpuTelemetry': {
        columns: [
          {
            name: 'TimeGenerated'
            type: 'datetime'
          }
          {
            name: 'Computer'
            type: 'string'
          }
          {
            name: 'VmId'
            type: 'string'
          }
          {
            name: 'Priority'
            type: 'string'
          }
          {
            name: 'ExpectedGpus'
            type: 'int'
          }
          {
            name: 'GpuIndex'
            type: 'int'
          }
          {
            name: 'GpuUuid'
            type: 'string'
          }
          {
            name: 'GpuName'
            type: 'string'
          }
          {
            name: 'UtilizationPercent'
            type: 'real'
          }
          {
            name: 'MemoryUsedMiB'
            type: 'real'
          }
          {
            name: 'MemoryTotalMiB'
            type: 'real'
          }
          {
            name: 'TemperatureC'
            type: 'real'
          }
          {
            name: 'PowerDrawW'
            type: 'real'
          }
          {
            name: 'EccUncorrected'
            type: 'long'
          }
          {
            name: 'XidErrors'
            type: 'long'
          }
          {
            name: 'XidCodes'
            type: 'string'
          }
          {
            name: 'DriverVersion'
            type: 'string'
          }
          {
            name: 'CudaVersion'
            type: 'string'
          }
          {
            name: 'Status'
            type: 'string'
          }
          {
            name: 'Healthy'
            type: 'boolean'
          }
          {
            name: 'Message'
            type: 'string'
          }
        ]
      }
    }
    dataSources: {
      logFiles: [
        {
          name: 'gpuTelemetry'
          streams: [
            'Custom-GpuTelemetry'
          ]
          filePatterns: [
            'C:\\ProgramData\\gpuform\\logs\\gpu-*.json'
          ]
          format: 'json'
        }
      ]
    }
    destinations: {
      logAnalytics: [
        {
          name: 'workspace'
          workspaceResourceId: workspace.id
        }
      ]
    }
    dataFlows: [
      {
        streams: [
          gpuStream
        ]
        destinations: [
          'workspace'
        ]
        transformKql: 'source | project TimeGenerated = todatetime(TimeGenerated), Computer, VmId, Priority, ExpectedGpus, GpuIndex, GpuUuid, GpuName, UtilizationPercent, MemoryUsedMiB, MemoryTotalMiB, TemperatureC, PowerDrawW, EccUncorrected, XidErrors, XidCodes, DriverVersion, CudaVersion, Status, Healthy, Message'
        outputStream: 'Custom-GpuTelemetry_CL'
      }
    ]
  }
  dependsOn: [
    // the output stream is the table
    gpuTable
  ]
}

resource gpuDcrAssociation 'Microsoft.Insights/dataCollectionRuleAssociations@2023-03-11' = {
  name: 'gpu-telemetry'
  scope: vm
  properties: {
    description: 'The dev box sends GPU telemetry through dcr-variant-devbox-windows-gpu.'
    dataCollectionRuleId: gpuDcr.id
  }
}

// The dev box vm-variant-devbox-windows is running (its collector reported for at least 45 of the last 60 minutes) and its GPUs averaged under 10%: it costs $1.180/h plus the Windows licence while it runs (Linux pay-as-you-go list price in westeurope: no Windows price is embedded). It runs from 07:15 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday until 20:30 (GMT Standard Time): if nobody uses it then, set an earlier autoShutdown.time, a later autoShutdown.startTime, or weekends: true.
resource gpuAlertIdle 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-windows-gpu-idle'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-windows: dev box on but idle'
    description: 'The dev box vm-variant-devbox-windows is running (its collector reported for at least 45 of the last 60 minutes) and its GPUs averaged under 10%: it costs $1.180/h plus the Windows licence while it runs (Linux pay-as-you-go list price in westeurope: no Windows price is embedded). It runs from 07:15 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday until 20:30 (GMT Standard Time): if nobody uses it then, set an earlier autoShutdown.time, a later autoShutdown.startTime, or weekends: true.'
    severity: 3
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT15M'
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: 'GpuTelemetry_CL\n| where Status == "ok"\n| summarize AvgUtilization = round(avg(UtilizationPercent), 1), ReportedMinutes = dcount(bin(TimeGenerated, 1m)) by Computer\n| where ReportedMinutes >= 45'
          timeAggregation: 'Average'
          metricMeasureColumn: 'AvgUtilization'
          operator: 'LessThan'
          threshold: 10
          // one alert per combination of these values
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: []
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// A GPU used more than 90% of its memory in the last 15 minutes: a model or batch change that will run out of memory. The peak is also the measurement gpuMemoryGiB asks for (`gpuform gpu-report`).
resource gpuAlertVram 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-windows-gpu-vram'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-windows: VRAM pressure'
    description: 'A GPU used more than 90% of its memory in the last 15 minutes: a model or batch change that will run out of memory. The peak is also the measurement gpuMemoryGiB asks for (`gpuform gpu-report`).'
    severity: 2
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    criteria: {
      allOf: [
        {
          query: 'GpuTelemetry_CL\n| where Status == "ok" and MemoryTotalMiB > 0\n| extend MemoryPercent = 100.0 * MemoryUsedMiB / MemoryTotalMiB\n| summarize PeakMemoryPercent = round(max(MemoryPercent), 1), PeakMemoryGiB = round(max(MemoryUsedMiB) / 1024.0, 1) by Computer, GpuIndex'
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'PeakMemoryPercent'
          operator: 'GreaterThan'
          threshold: 90
          // one alert per combination of these values
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
            {
              name: 'GpuIndex'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: []
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// The dev box reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-variant-devbox-windows --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.
resource gpuAlertFaults 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-windows-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-windows: GPU faults'
    description: 'The dev box reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-variant-devbox-windows --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.'
    severity: 1
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT10M'
    criteria: {
      allOf: [
        {
          query: 'GpuTelemetry_CL\n| where Status != "ok" or XidErrors > 0 or EccUncorrected > 0\n| extend Kind = case(Status != "ok", Status, XidErrors > 0, "xid", "ecc-uncorrected")\n| summarize FaultSamples = count(), XidCodeSet = make_set(XidCodes), LastMessage = take_any(Message) by Computer, Kind'
          timeAggregation: 'Total'
          metricMeasureColumn: 'FaultSamples'
          operator: 'GreaterThan'
          threshold: 0
          // one alert per combination of these values
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
            {
              name: 'Kind'
              operator: 'Include'
              values: [
                '*'
              ]
            }
          ]
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    autoMitigate: true
    actions: {
      actionGroups: []
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// GPU utilisation and memory, running hours per day against the schedule, idle GPU-hours and
// their cost this month, faults and the alerts fired.
resource gpuWorkbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: guid(resourceGroup().id, 'variant-devbox-windows-gpu-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'GPU dev box variant-devbox-windows'
    category: 'workbook'
    sourceId: workspace.id
    serializedData: '{"version":"Notebook/1.0","items":[{"type":1,"content":{"json":"## GPU dev box `vm-variant-devbox-windows`\\nSampled once a minute by the gpuform collector (`nvidia-smi`) into `GpuTelemetry_CL` while the box runs: 07:15 to 20:30 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday (GMT Standard Time). Idle: under 10% utilisation; VRAM alert above 90%."}},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by GpuIndex, bin(TimeGenerated, 5m)","size":0,"title":"GPU utilisation (%)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU utilisation (%)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by GpuIndex, bin(TimeGenerated, 5m)","size":0,"title":"GPU memory used (GiB)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU memory used (GiB)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now())\\n| summarize RunningHours = dcount(bin(TimeGenerated, 1m)) / 60.0 by Day = bin(TimeGenerated, 1d)\\n| extend ScheduledHours = 13.25\\n| order by Day asc","size":0,"title":"Running hours per day this month against the schedule (UTC days)","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"barchart"},"customWidth":"50","name":"Running hours per day this month against the schedule (UTC days)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now()) and Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\\n| where Utilization < 10\\n| summarize IdleVmHours = count()\\n| extend IdleCostUSD = round(IdleVmHours * 1.18, 2)","size":0,"title":"Idle GPU-hours and their cost this month (Linux rate; the Windows licence is extra)","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"tiles"},"customWidth":"50","name":"Idle GPU-hours and their cost this month (Linux rate; the Windows licence is extra)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status != \\"ok\\" or XidErrors > 0 or EccUncorrected > 0\\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\\n| order by TimeGenerated desc","size":0,"title":"GPU faults and health rows","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"table"},"customWidth":"50","name":"GPU faults and health rows"},{"type":3,"content":{"version":"KqlItem/1.0","query":"alertsmanagementresources\\n| where type =~ \\"microsoft.alertsmanagement/alerts\\"\\n| where tostring(properties.essentials.alertRule) contains \\"alert-variant-devbox-windows-\\"\\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\\n| order by FiredAt desc","size":0,"title":"Alerts fired","queryType":1,"resourceType":"microsoft.resourcegraph/resources","crossComponentResources":["value::all"],"visualization":"table"},"name":"Alerts fired"}],"isLocked":false,"fallbackResourceIds":[],"$schema":"https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"}'
  }
  dependsOn: [
    gpuTable
  ]
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

@description('Resource id of the GPU workbook (open it in the portal: Monitor > Workbooks).')
output gpuWorkbookId string = gpuWorkbook.id
