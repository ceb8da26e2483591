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
  name: guid(gpuDcr.id, identity.id, '3913510d-42f4-4e42-8a64-420c390055eb')
  scope: gpuDcr
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '3913510d-42f4-4e42-8a64-420c390055eb')
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
      commandToExecute: 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "$d=Join-Path $env:ProgramData \'gpuform\';$null=New-Item -ItemType Directory -Force -Path $d;$null=icacls $d /setowner \'*S-1-5-32-544\' /T /C;$null=icacls $d /inheritance:r /grant:r \'*S-1-5-18:(OI)(CI)F\' \'*S-1-5-32-544:(OI)(CI)F\' \'*S-1-5-32-545:(OI)(CI)RX\' /T /C;$f=Join-Path $d \'gpuform-gpu.ps1\';$b=[Convert]::FromBase64String(\'H4sIAAAAAAAC/8VbaXPbSJL9zl9RoeAGgDYBk3IfthwdbVmHzW5dK1L2zEgcGQaKEmwQYAOgbI3t/74vs6qAAg+5d2cjxo6QSCCRlVWVx8tX0DwswpnbuTyj37KShXuWl0mV5Jn4VfS9yWVZFUl2M+nu5bNZmMW46ji9DfIDyCdZNenuFjf0+Ca5bSN3lhcVvj/9ZTDoeJ2RrPwRhouq4zyWwn8ji5Ie2O50D4oiL3Yjev6skFNZyCySZMuoyudOp/vfC1nc0/cqmcmyCmfzXpLF8nNvsUjiXgYTeosqSZN/haQiuJkvejM5y4v7YFHK2Hyu8ipMe5WczWURVotCsuA8/ySLIC7CTz0ZRYEkU8pgkUV5UcioknFwl6fQm0qtIC6SO1lc3ynzYd1hXsxCmqgTlXe9LL+VYSwLfFhkSVVC4KzIb7BO+2EVQiqZCrcrs7sd67Invojla+KbkGkpccfZ27mybjjiW6d7nuc05O95kvlnYXUrWqM4mNkUZmHwo/xmPynscV+dXRyenh9f4/f10emr6/3heT3+mnuNHdZgPLyT5jclWzOqwko+MMxovDs+2DhQffeBoUoagcf6Q8r5fnhfkqfxyCm5ypN+v9MdZnf4ePkqzd+HtTfsLVLa7GE2zSc7OxAJiyTMKn25072ootWHsIpyDGcbVfepLCfObvxhUVbj/CKjzS/hBrtluZjJ+rvDpszmULV1j3/+8bEfx87Yef16ZzbbKUvnH84WDTZ9CpET+ck/ff8B/iVG9yVcMhjLz1VwMT58egDPixGTbncaYi28DmIzXcwymu8Lt+OQVa9kRi4sY6cH58hn8wVCkD6/mQ352lmR5EVS3dPng89z9uNX80VJ3/F7SMGjP18ghBDy9PEEgURXL5pYOpNFJLOKrh5zFF0goI6Tl82FMQWFvjJuYmuPdJ5RbO0jtN6yIVF00YQVXflbEnPol/rLHhIDf97nGNMZgie5iMP6a8c5X2QZ1uj3/D2Lk/upyb2WYVrd3ivzyjK8kQ5ST5cEDxN2lBX//P305ej6cHh0sOKb9Z0H/PIDmQC3nCJjcP57hTR3kn8SXzorI52cvsUYnUJigTJxaXwMXok8WsqDz2FUrTzRE8qx8Bu+i5/wV6+DOKBUa+vAdYxrtHezYDeOx0n0sXT9gfgBpmQBfxX/JS7Ztedhhsf4GrZ5JKM8iz1S3ZqLtdSwvUIe/qLGRrxVcFqyYnga0OpC2zly326akje79ap7wbhIZq7HK8KlAcMW9zxpl5X0luPvZDF7D5tU9O3snOSZNAtwiQox6WYebVc9WezANxGFVXSLq9+aRVikqT0hirvz/JPbfRmWpPBNmC5kSZvSLbBnmEpeIHfLePLiCx7LCxlCo9uNRAJtOhDZTyB+2Y0meIQHEbb0PETdwwMvlsehgRqxj6yUhIM/5D1bQQvkZ/Ar0h/s5VkVJlkJUZ5tdUtGbuncviNIQylIPBQR2ybyqUAgj2UqUZaL++u9oy3KmWztR7aWxqPPWJZmnXDfXiYMjPBDuvPVPrg1TqCN5eUiqNAP+mpL43zxnre/2VXOZ2rbv7e5h2keVu3djT0rULpxZ/OONqYOs0rerLWVvHV5SoJvqxjlDfTln9Deciq1ryZc0xxKL48R+zxRGIDYw8OtiMEc8o/SH+d52hhy8Bk+oL9dThg/HSWlsm1eJmvrwX4S3mR5WSVRGaCyR0hmSANFRWWMn+KIo4xNm4oR1EWoRlXKKqoWLvxPDyW+CqCUA/idGQaoYssRj0T3Gj/o4zdP+B+Q3YQjHE8pQ64f3co0hfYIFYYG4pqk7p7LOKFUDrOyOCzi00WFOkRCVbHYIMPZvi2yh3Co5En+FoiOQ1Dd04mG6unl5iXBTvCquKTKa1KA2bQXXwTVFAKv2788F6dsn+M8FzCEKjUtHJ7JKIZKUoSgcrvXwcHnSM7ZV3UV8SiMEEi5muE8aM86oLw3zg+yeLe8zyKkuq7kESxJnvuqYBPy8+BtmFS0T5+TygWg6fc5DHgp6PYfSZq6nliT6Ox5/rhpnnESq2SRlSjLlHye9EWpJraiB8ORGfTN6KPJw/4SwMkoplnqS6ymjoND7KZ/cpfESTiaJWuL4Zvh/nD3enQ8tGNuvQSlMOwSJgBX0UDItUoxPaWcRBVl9fnJ9lXGFvjlLAnkZ+l4vZXHNGqmYCqFo4bEGhTzvOBkdXXyBgasKAKoWK4OjYEmk4/Rq6ih/KMECC1M1biRPeNIOVY0o4xKBde0Ys7SmMK32iQxgsFZld5TjUgyBAwvMLS0dM/igIfcnD9pxMNEprHbVZmhzlSTLmUXMxedJDMptJzwyUj9JTgbmQ9FDghYJbK85OcnNuIxir/7UMAFs/FLx1m2eTiLCY9g1aNb2W6E6mbESSAUfCi5SyuLiB3WcrDh8b7Cd9ZeTnXhhnhPKO1evQZTNemNGzu14lVb7qotRW3KqmVp4Z+Hn5CadW06LPKZ/zusbYc4/efRYdKa8qQTZYHy1aTKE1kFb+X7c/knYAfBLZVlXee2quY7jx8Pfn4WbP/0Y6B/PwZYCOG64WOgDaSrSD6OVFfxWzhPfN3q/rrd3x74/W2/P6AKgRGD19zqlgQ1XQBupYTAN+VwI4Td/XxvgJK6RPhTpdLtPjVuhSwp0/M9LBgyyjzPACM8Mz2NNN3VQgnsCVZBhrNztsVlXbYSddf1PK9Jvi7VimmShWnKuZWf2UtzGhJretno1rj2LbopWQNbdgu4h4Ku3NR5xlUVoF23q6vlyUTjkm9bzU4DIpBGFU7FMlgoQ9ANOKwqJN0i4PxNYKavI7QIKH37Mx7a2bvY3xVa+c5V+YN72fefBZNHnmP71jEJIxoHE/FADKouTXVwlqEJ/IdhP5k7U/VTJW1vtQzsnw/fHJxfH7w5OBnXbdjSY5tD6GFN2IS3t0DzDeYB2jELgXaTQE/HtHbIEIlindSuPJTAW1PUHmqe3tDWPTCJWhvnA69GzWv7vlZiWEKvbIKFGIxJauxkNtTBLfy9NCxLBo+AXU+2r0+5bcf2Kcf3gqOwrF6ill7MaSqBRXzQ9xYIaQ+DFtSjdHCMooRSiN7TY1P1Kk2TFDOnXf0iwExp/KoLNvAKcgWqnizMjewujePZR7p1JO9kyv4w6IFjfC4Y+ZE5tGdsBOw8yqPGxjV+hPke3PEeHLIpr8PytgrRvQhjW7vMgoBcB55rb782CFH5kgnwZb9XNZ7oDX2hqTgzRg9Gvq41M9tTL/+JKJ384F7FOlC1rkfwN6ZaWwFrwzmeLA1aj4AMsciA4Pa0NS71CUrdVzECZWtm6WPPUT+8ujHoOV4b5XFWhDNn0op/cuoe0SOfVGOtUzfSRzNnRp9GROVRmgvd+Gq1apQ2BQGiORI0RB+JrXfFu2xrbYrenc9l1pAP2oxWil5t1NDSp5irYiW6hipTdms8RqRKt9TcXhdNbT7imbp2fHodqkxDWCT45/h+LsU+9z7gyOBseUFxpwJeUbI9C6l8JYiNzpTqI9ViPTSBHPRAmszTFxmtCSXmmHuO3Ufoa7y01sPOubxZpGHBLOp7EBMchp0WocihRNPqGFpR8L82tNjPqPOCMa/RjlGowqGJehT1P50NWrbeETnpdQw3aQRrEzs2UylUW6sudGwSqlZuXWRCrKzz6AY4+DmJfRYCHMRnvZ52FRONEuibUWve7mQ0EttUi0uuxVu+/yedWPhgan5VhxdbPYGrUz4p+FWfGGzZxUfnxIe61aWGgHu5KWIZgNQ0PD3B7UpPnO2OX3s7RA9VgMe6rVEnF4IxHtw+/s1RvQfYn3ItCaGjA/ECiFcU4T1xCatAg9ciAmgxHUyDX3hJrMBPkSso9l0DS8p5mlQU1r8hrhk+AxdTimTRYES3Xc48a7Iwsq8qlpR8FUJX2Y0blcGAIiDSDRI5PfZD+bzhwEXLY1e4JNQEZFSvo2ly0RLHve1JR9PmK7eeTDqrNHp7EENETS9/xBgten2NSY30T7W04d4fkv4Z0jYvLx7U/QukG9Z+/eI00k8h3Wb1H1zKZxCvKf/WeiEaA1WpOuYYQKwI8OVO62jAWvBBf9KxHa95ljyzo44IRHufnPyj09FHBks7yCSUKe3thwgHX97lSTzhyOHmx9XMslCJlTzN85rWzUQLvBKwHBSYelL7ah1D5PIKILj0DIU9lTwUvEcaxxt06C1Fzlqoi6Dozsobc+jB2s2YNxWPKdTVy/6kOePYavKMkOCAsKtdMwXmwRQ+KW+CI5ndEDiGsp/6Sp0aj++OFu8VJnD7PXX/GxdS2gdtkr0u9LiV4vxpiCxMGL0+Bs1yyqiOaFLWi6V1b4W2QfLN1qvihi/WptekZuOZmxyy5YeNb6jpdupeQs3M2l+QYy1oYeEgWJ4o/r0+hbg0x1lE19NBrj9LSpSlG0ffNmdcE4uQ5RvmxItu2JtY3tJqdW2jPDopqI0S6KHKLXZXC9IJmyvTx8guG8TEsYWEHDrxPD6O6VCP0RBxyop4gafysJ3urV5yE1wbV0G0TkGs+bKDWWp47vAP7VayfX4jKtMaEJ55LqwH9cfnovZGHhtRYC0+tFaM+dZiCaWC5xhAzPkuZ1ARVHS1oQ+A3BqsduFl1V8Y3nmwVSUl5Fmr5p3LeRpGUlvGgj0VMRYuWX3sOL9rPUNZ7ntzr0FVT+9GM0kcLOTTqULWSKR0sO/69Rm/94CPWQ6UA2Qybcfo4zZJY4XEWyuhPVj3fSqyflAr+DC1qlBJHLLrYKiADvWo6FsZ7keNP0jK9G3/vIq/PP3WdTQPw7coFagpkzOfo4rfSX+NsTTMIbaCsYXuHupqot3XImz6DU0zWGZpVPhYREXNM68hI9zvepu3ibXsdPklGAWQAw4+H/iz4UM4fNWdtYSCTvMbCJS6v1Qa1tIjFLNTRNEtt7WGjhC+gGnkSkBL6pi7VDvBL49oSB+Y/MBUCmUovW+s0FrrFy44S+tVA2/92bMRu8hujaC9MyP0qnpr3O5emsisssgkdQF8ZSSxSg1b+hOzpfouqVi+VTLZSY6qhbAIhgAlmpUo0rVQf4VGVZp6dd/HB7rm5RRqt0d7w6HX+XRLDZfLC1ZjGEXlkh6mXKmaGO6vYatYkLGQ+oRrDnMb7/HoR9WZ3GpfVQuFrjWPOQopedDUXt4Tx+Qi2aP7T5OIwbYSHumK0L1lUuShlKtWpuSX15zTPxyuVbHV866dezP+1uvx+OzxIBhQjb1FFfGEVkhshY4znyiBHRE2dj7+sCSh4BQfQdJENbzytEimOrEdERFPTReZC/HMpgecczk7xD0B1+NPRsmyFA2gpOyhaqnDdFHeujajZfHltQdqxrzNYOuGeCQLFArFq1DbKDN6HVC7CH2VxSoXlsxVHrfJhuEZ6kKhDnuP8nz+Pow+9sQmieHZ3c9GyrMiKl3r9fT0KI8+yqoMxtH8SBtGhmBlLLOhIFAnzZ5tPzirbrqOlK1FljD+yjsc+vBZyQssH1r/oI//gx1rfELdK5FW0grHDQi0umyGU7UNNaeYBmfIGVSveGmsHATpYDeiQ28sg9pdmmkzBEM2Mz0FztRNmhSvjD9KUbWFf4xT6qTUaXbQ7+sjrGX/GCoWYol564m1HlPKdNqGQuqgVy8jtQXBvBw4/xsWjjT0vkPG8aqdjfSRrIJXfAK4fJHORclIXte9fH6/rqgvPbMP9ISQqhRNQjNUBlLim5ft6W484VavTZTcs/PLGld3g6B/xW+1lvSdz46Je57NOMFtoSaCZZ/yecNJnlF/XqDAos4ABvGbHkRY5MhS9+Ll/RwHBYyZpHi3xVa+29piTjKLknlowmoE9jleoF8bh+XHs/qmDz6jAC/onIzF7sX49en5cPz3q9HfR+ODY+AirH2e8SZRtkgiCRdU4QJuT/H9r5Mb8NoVpX5+4XVlMPTDN8Qv+LsVu+Fi3uniSX5feLPwKR+D7FYaJhDkaB1bDKjDBkKWFb/VzIt0hwlxv2neniNfZ3ExICSryLJ1w45kRYcrJX5ba0xqjpIZmvgNWrdhw/EirZJ5Ks3ZTSmGNxkCHU8InyeMvj/bvUOzzKcYPkB3/km9KjQ9zV6GFSzHwTrcDVWGjjOG01fwqxvrXgfEMMVb0bZa+LyZ5H/OlY60K0ddZVxqh5+vp++YKHvXIQePioTfo6lld0QJ1AZD1R6h8RSfEoxgtatIALlov/JcD09vHAt3919gssRxniWIa7F7Q+DJoRE1gndXdkDf8M2rTBRgvnlZSmyZ8DB7WOejLY/UGrd54bIbIlmw9diextWtkPDNfovaKWyCn/Pm/8lN7Pc2/yGLnH2U31tSVebZs2f1le+77Hec6z/lSAoub/KjpnKS6yhZgTo2hynVxvoJl2lwl9AlD6BOZsQVgtT6f/Adta120W75jkpg33UYpcVyF11b/+31/PcVmQjXHBGd/Sxth5bIrTMGlEqbZXKJ4NC7tmmzvC3TQ/VRCkukBwY1unZSgXW0eocps4hhZBtWAENz7aY/VWm4TvpW95kDeuWR/0bFu/QHkw5RncDtEcZ06mS2on/PZIi/pH9VM+8v9LZg8l/Qpv6Y5huOvVkboSrHRMqXlUZJ7ZB+I5M7IM0cUC/EnVbTvX5pNPIHIhBiOQ3pnT4QQOg8ypw5HfUCI6vmjs5ZENu4I5ZAmNl7cfC3s4O98cE+/Y3HSJydno/h1yYhtm9+1dGjhfTEPGXQNuPH/wH3T/smyzQAAA==\');$z=New-Object IO.Compression.GZipStream((New-Object IO.MemoryStream(,$b)),[IO.Compression.CompressionMode]::Decompress);[IO.File]::WriteAllText($f,(New-Object IO.StreamReader($z)).ReadToEnd());& $f install 1 8711;exit $LASTEXITCODE"'
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
          name: 'RunningJobs'
          type: 'int'
          description: 'Jobs the workload reports running on the VM: the integer its supervisor writes to /run/gpuform/jobs (Windows: C:\\ProgramData\\gpuform\\jobs); empty when it writes none'
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
            name: 'RunningJobs'
            type: 'int'
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
        transformKql: 'source | project TimeGenerated = todatetime(TimeGenerated), Computer, VmId, Priority, ExpectedGpus, GpuIndex, GpuUuid, GpuName, UtilizationPercent, MemoryUsedMiB, MemoryTotalMiB, TemperatureC, PowerDrawW, EccUncorrected, XidErrors, XidCodes, DriverVersion, CudaVersion, RunningJobs, Status, Healthy, Message'
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
    windowSize: 'PT1H'
    criteria: {
      allOf: [
        {
          query: 'let Since = now() - 10m;\nlet Seen = GpuTelemetry_CL\n| where TimeGenerated > now() - 60m\n| summarize FirstSeen = min(TimeGenerated) by Computer;\nlet Health = GpuTelemetry_CL\n| where TimeGenerated > Since and Status != "ok"\n| join kind=inner Seen on Computer\n| where FirstSeen <= now() - 30m\n| summarize FaultSamples = count(), LastMessage = take_any(Message) by Computer, Kind = Status;\nlet Xid = GpuTelemetry_CL\n| where TimeGenerated > Since and XidErrors > 0\n| summarize FaultSamples = dcount(TimeGenerated), XidCodeSet = make_set(XidCodes) by Computer, Kind = "xid";\nlet Ecc = GpuTelemetry_CL\n| where TimeGenerated > Since and Status == "ok" and isnotnull(EccUncorrected)\n| summarize arg_max(TimeGenerated, EccUncorrected), EccMin = min(EccUncorrected) by Computer, GpuIndex\n| where EccUncorrected > EccMin\n| summarize FaultSamples = sum(EccUncorrected - EccMin) by Computer, Kind = "ecc-uncorrected";\nunion Health, Xid, Ecc\n| project Computer, Kind, FaultSamples'
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

// The dev box vm-variant-devbox-windows has been running for 45 minutes (its Azure Monitor Agent's Heartbeat rows) but wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see it. A deallocated box (nightly shutdown, or stopped by hand) writes no heartbeat and never fires. Check the gpuform-gpu collector on the VM (`systemctl status gpuform-gpu-collect.timer`; Windows: the scheduled task \gpuform\gpuform-gpu-collect), and the GpuCollector extension's status.
resource gpuAlertSilent 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-windows-gpu-telemetry-missing'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-windows: no GPU telemetry from the running dev box'
    description: 'The dev box vm-variant-devbox-windows has been running for 45 minutes (its Azure Monitor Agent\'s Heartbeat rows) but wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see it. A deallocated box (nightly shutdown, or stopped by hand) writes no heartbeat and never fires. Check the gpuform-gpu collector on the VM (`systemctl status gpuform-gpu-collect.timer`; Windows: the scheduled task \\gpuform\\gpuform-gpu-collect), and the GpuCollector extension\'s status.'
    severity: 2
    enabled: true
    scopes: [
      workspace.id
    ]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT45M'
    criteria: {
      allOf: [
        {
          query: 'let Running = toscalar(Heartbeat\n| where TimeGenerated > now() - 45m and _ResourceId endswith "/virtualmachines/vm-variant-devbox-windows"\n| summarize Beats = dcount(bin(TimeGenerated, 1m)), FirstBeat = min(TimeGenerated), LastBeat = max(TimeGenerated)\n| extend Up = iff(Beats >= 35 and FirstBeat <= now() - 40m and LastBeat >= now() - 15m, 1, 0)\n| project Up);\nGpuTelemetry_CL\n| where TimeGenerated > now() - 15m and _ResourceId endswith "/virtualmachines/vm-variant-devbox-windows" and isnotempty(Computer)\n| summarize Reporting = dcount(Computer)\n| extend Running = toint(coalesce(Running, 0))\n| extend SilentInstances = max_of(0, Running - Reporting)'
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'SilentInstances'
          operator: 'GreaterThan'
          threshold: 0
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
