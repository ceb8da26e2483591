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
      commandToExecute: 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "$d=Join-Path $env:ProgramData \'gpuform\';$null=New-Item -ItemType Directory -Force -Path $d;$null=icacls $d /setowner \'*S-1-5-32-544\' /T /C;$null=icacls $d /inheritance:r /grant:r \'*S-1-5-18:(OI)(CI)F\' \'*S-1-5-32-544:(OI)(CI)F\' \'*S-1-5-32-545:(OI)(CI)RX\' /T /C;$f=Join-Path $d \'gpuform-gpu.ps1\';$b=[Convert]::FromBase64String(\'H4sIAAAAAAAC/8Vba3PbRrL9zl8xpeItAAkBk3Kc2HKlYlkPm4leV6Ts3ZW4MgwMJdggwACgbK3t/35P98wAAz7k3Lu3au0qiQQaPT0z/Th9BpqHRThzO5dn9FtWsnDP8jKpkjwTv4q+N7ksqyLJbibdvXw2C7MYVx2nt0F+APkkqybd3eKGHt8kt23kzvKiwvenvwwGHa8zkpU/wnBRdZzHUvhvZFHSA9ud7kFR5MVuRM+fFXIqC5lFkmwZVfnc6XT/eyGLe/peJTNZVuFs3kuyWH7uLRZJ3MtgQm9RJWnyr5BUBDfzRW8mZ3lxHyxKGZvPVV6Faa+Ss7kswmpRSBac559kEcRF+KknoyiQZEoZLLIoLwoZVTIO7vIUelOpFcRFcieL6ztlPqw7zItZSBN1ovKul+W3MoxlgQ+LLKlKCJwV+Q3WaT+sQkglU+F2ZXa3Y132xBexfE18EzItJe44eztX1g1HfOt0z/Ochvw9TzL/LKxuRWsUBzObwiwMfpTf7CeFPe6rs4vD0/Pja/y+Pjp9db0/PK/HX3OvscMajId30vymZGtGVVjJB4YZjXfHBxsHqu8+MFRJI/BYf0g53w/vS/I0HjklV3nc73e6w+wOHy9fpfn7sPaGvUVKmz3MpvlkZwciYZGEWaUvd7oXVbT6EFZRjuFso+o+leXE2Y0/LMpqnF9ktPkl3GC3LBczWX932JTZHKq27vHPPz7249gZO69f78xmO2Xp/MPZosGmTyFyIj/5p+8/wL/E6L6ESwZj+bkKLsaHTw/geTFi0u1OQ6yF10FspotZRvN94XYcsuqVzMiFZez04Bz5bL5ACNLnN7MhXzsrkrxIqnv6fPB5zn78ar4o6Tt+Dyl49OcLhBBCnj6eIJDo6kUTS2eyiGRW0dVjjqILBNRx8rK5MKag0FfGTWztkc4ziq19hNZbNiSKLpqwoit/S2IO/VJ/2UNi4M/7HGM6Q/AkF3FYf+0454sswxr9nr9ncXI/NbnXMkyr23tlXlmGN9JB6umS4GHCjrLin7+fvhxdHw6PDlZ8s77zgF9+IBPgllNkDM5/r5DmTvJP4ktnZaST07cYo1NILFAmLo2PwSuRR0t58DmMqpUnekI5Fn7Dd/ET/up1EAeUam0duI5xjfZuFuzG8TiJPpauPxA/wJQs4K/iv8Qlu/Y8zPAYX8M2j2SUZ7FHqltzsZYatlfIw1/U2Ii3Ck5LVgxPA1pdaDtH7ttNU/Jmt151LxgXycz1eEW4NGDY4p4n7bKS3nL8nSxm72GTir6dnZM8k2YBLlEhJt3Mo+2qJ4sd+CaisIpucfVbswiLNLUnRHF3nn9yuy/DkhS+CdOFLGlTugX2DFPJC+RuGU9efMFjeSFDaHS7kUigTQci+wnEL7vRBI/wIMKWnoeoe3jgxfI4NFAj9pGVknDwh7xnK2iB/Ax+RfqDvTyrwiQrIcqzrW7JyC2d23cEaSgFiYciYttEPhUI5LFMJcpycX+9d7RFOZOt/cjW0nj0GcvSrBPu28uEgRF+SHe+2ge3xgm0sbxcBBX6QV9taZwv3vP2N7vK+Uxt+/c29zDNw6q9u7FnBUo37mze0cbUYVbJm7W2krcuT0nwbRWjvIG+/BPaW06l9tWEa5pD6eUxYp8nCgMQe3i4FTGYQ/5R+uM8TxtDDj7DB/S3ywnjp6OkVLbNy2RtPdhPwpssL6skKgNU9gjJDGmgqKiM8VMccZSxaVMxgroI1ahKWUXVwoX/6aHEVwGUcgC/M8MAVWw54kfRvcYP+vjNE/4HZDfhCMdTypDrR7cyTaE9QoWhgbgmqbvnMk4olcOsLA6L+HRRoQ6RUFUsNshwtm+L7CEcKnmSvwWi4xBU93SioXp6uXlJsBO8Ki6p8poUYDbtxRdBNYXA6/Yvz8Up2+c4zwUMoUpNC4dnMoqhkhQhqNzudXDwOZJz9lVdRTwKIwRSrmY4D9qzDijvjfODLN4t77MIqa4reQRLkue+KtiE/Dx4GyYV7dPnpHIBaPp9DgNeCrr9R5KmrifWJDp7nj9tmmecxCpZZCXKMiWfx31Rqomt6MFwZAZ9M/po8rC/BHAyimmW+hKrqePgELvpn9wlcRKOZsnaYvhmuD/cvR4dD+2YWy9BKQy7hAnAVTQQcq1STE8pJ1FFWX1+vH2VsQV+OUsC+Vk6Xm/lMY2aKZhK4aghsQbFPC84WV2dvIEBK4oAKparQ2OgyeRj9CpqKP8oAUILUzVuZM84Uo4VzSijUsE1rZizNKbwrTZJjGBwVqX3VCOSDAHDCwwtLd2zOOAhN+dPGvEwkWnsdlVmqDPVpEvZxcxFJ8lMCi0nfDJSfwnORuZDkQMCVoksL/n5iY14jOLvPhRwwWz80nGWbR7OYsIjWPXoVrYboboZcRIIBR9K7tLKImKHtRxseLyv8J21l1NduCHeE0q7V6/BVE1648ZOrXjVlrtqS1GbsmpZWvjn4SekZl2bDot85v8Oa9shTv95dJi0pjzpRFmgfDWp8kRWwVv5/lz+CdhBcEtlWde5rar5zqNHg5+fBdtPfgr070cACyFcN3wEtIF0FclHkeoqfgvnia9b3V+3+9sDv7/t9wdUITBi8Jpb3ZKgpgvArZQQ+KYcboSwu5/vDVBSlwh/qlS63afGrZAlZXq+hwVDRpnnGWCEZ6ankaa7WiiBPcEqyHB2zra4rMtWou66nuc1ydelWjFNsjBNObfyM3tpTkNiTS8b3RrXvkU3JWtgy24B91DQlZs6z7iqArTrdnW1PJloXPJtq9lpQATSqMKpWAYLZQi6AYdVhaRbBJy/Ccz0dYQWAaVvf8ZDO3sX+7tCK9+5Kn9wL/v+s2Dyo+fYvnVMwojGwUQ8EIOqS1MdnGVoAv9h2E/mzlT9VEnbWy0D++fDNwfn1wdvDk7GdRu29NjmEHpYEzbh7S3QfIN5gHbMQqDdJNDTMa0dMkSiWCe1Kw8l8NYUtYeapze0dQ9MotbG+cCrUfPavq+VGJbQK5tgIQZjkho7mQ11cAt/Lw3LksEjYNfj7etTbtuxfcrxveAoLKuXqKUXc5pKYBEf9L0FQtrDoAX1KB0coyihFKL39NhUvUrTJMXMaVe/CDBTGr/qgg28glyBqicLcyO7S+N49pFuHck7mbI/DHrgGJ8LRn5kDu0ZGwE7j/KosXGNH2G+B3e8B4dsyuuwvK1CdC/C2NYusyAg14Hn2tuvDUJUvmQCfNnvVY0nekNfaCrOjNGDka9rzcz21Mt/IkonP7hXsQ5UretH+BtTra2AteEcT5YGrUdAhlhkQHB72hqX+gSl7qsYgbI1s/Sx56gfXt0Y9ByvjfI4K8KZM2nFPzl1j+iRT6qx1qkb6aOZM6NPI6LyKM2Fbny1WjVKm4IA0RwJGqI/iq13xbtsa22K3p3PZdaQD9qMVopebdTQ0qeYq2IluoYqU3ZrPEakSrfU3F4XTW0+4pm6dnx6HapMQ1gk+Of4fi7FPvc+4MjgbHlBcacCXlGyPQupfCWIjc6U6iPVYj00gRz0QJrM0xcZrQkl5ph7jt1H6Gu8tNbDzrm8WaRhwSzqexATHIadFqHIoUTT6hhaUfC/NrTYz6jzgjGv0Y5RqMKhiXoU9T+dDVq23hE56XUMN2kEaxM7NlMpVFurLnRsEqpWbl1kQqys8+gGOPg5iX0WAhzEZ72edhUTjRLom1Fr3u5kNBLbVItLrsVbvv8nnVj4YGp+VYcXWz2Bq1M+KfhVnxhs2cVH58SHutWlhoB7uSliGYDUNDw9we1KT5ztjl97O0QPVYDHuq1RJxeCMR7cPv7NUb0H2J9yLQmhowPxAohXFOE9cQmrQIPXIgJoMR1Mg194SazAT5ErKPZdA0vKeZpUFNa/Ia4ZPgMXU4pk0WBEt13OPGuyMLKvKpaUfBVCV9mNG5XBgCIg0g0SOT32Q/m84cBFy2NXuCTUBGRUr6NpctESx73tSUfT5iu3Hk86qzR6exBDRE0vf8IYLXp9jUmN9JNa2nDvD0n/DGmblxcP6v4F0g1rv35xGumnkG6z+g8u5TOI15R/a70QjYGqVB1zDCBWBPhyp3U0YC34oD/p2I7XPEue2VFHBKK9T07+0enoI4OlHWQSypT29kOEgy/v8iSecORw8+NqZlmoxEqe5nlN62aiBV4JWA4KTD2pfbWOIXJ5BRBceobCnkoeCt6PGscbdOgtRc5aqIug6M7KG3PowdrNmDcVjynU1cv+pDnj2GryjJDggLCrXTMF5sEUPilvgiOZ3RA4hrInfaVOjcd3R4v3ChO4/Z66/40LKe2DNsleF3rcSnH+NEQWJoxeH4NmOWVURzQp68XSurdC2yD5ZutVccMXa9NrUrPxzE0O2fLDxjfUdDt1L6FmZu0vyLEWtLBwECxPFP9en0JcmuMsouvpINefJSXK0o2jb5szrolFyPINc+JFN+xNLG9ptbq2UR6dFNRGCfRQ5Ra7qwXphM2V6WNklw1i4thCQg6deB4fx3Sox2iIOGVFvMBTedhO91YvuQmujasgWqcg1nzZwSw1PHf4h3Yr2T6/EZVpDQjPPBfWg/rjc1F7I4+NKLAWH1orxnxrsYRSwXMMIOZ8lzOoCCq62tAHQG4NVrvwsuovDO882KqSEvKsVfPO5TwNI6ktY8GeihgLl6w+dpzftZ6hLPe9udegqqd3o5kkDhby6VQhayRSOth3/fqM33vAxywHygEymbZj9HGbpLFC4q2V0B6s+z4VWT+oFXyYWlWoJA7ZdTBUQId6VPStDPeTxh8kZfq2f17FX55+6zqah+FblArUlMmZz1HF76S/xlga5hBbwdhCdw91NdHuaxE2/YamGSyzNCp8LKKi5pnXkBHud73N28Radrr8EowCyAEHnw/82fAhHL7qzlpCQaf5DQRK3V8qDWvpEYrZKaLolttaQ0cIX8A0ciWgJXXMXaqd4JdHNKQPTH5gKoUylN43Vmit9QsXnKX1qoG3/uz5hfuk/5hepshujaC9MyP0qnpr3O5emsisssgkdQF8ZSSxSg1b+oTZUn2XVCzfKpnsJEfVQlgEQ4ASzUoU6Vqov0KjKk29uu/jA13zcgq126O94dDrfLqlhsvlBasxjKJySQ9TrlRNDPfXsFUsyFhIfcI1h7mN93j0o+pMbrWvqoVC15rHHIWUPGhqL++JY3KR7NH9p0nEYFsJj3RF6N4yKfJQylUrU/LLayrACA+RQdsK1Tinf9g4ZCSLuwQBeZGFdwApxB4xKKEXv6xOee2KNVZvvR6Pzx4NggFVZhrRE9oM4jh0dPpEJOyIsJndow9LEgqE8cElLY8GZZ4WyVT/tiMiYrfpIjMonnGVgDM155S4J+DX/MkoWZaiAZSUPVQtdZguylvX5sEslr32W82zt3lv3UbT0krNxlCzKTN6iVA7Fn2VxSqDlsxV9rcpiuEZqkmhjoiP8nz+Pow+9sQmieHZ3c9GyrPiMF0bK/T0KI8+yqoMxtH8SBtGhmBlLLOhIFDn055tP5iubrqOyq1FljqDlTc/9JG1khdYPhAGQR//BzvW+ITVV+KzpBWOG+ho9eYMwmobaiYyDc6QaajK8dJYmQvSwW5ER+VYBrW7NNNmCAZ6ZnoK0qmbNCleGX+UotYL/xhn20mpk/Og39cHX8v+MVTcxRJf1xNrPaaU6bQNoNTxsF5GaiaCeTlw/jfcHWnofYfC41U7G+mDXAXK+Nxw+SKdppKRvK57+fx+HRRYemYfmAshVSlyhWaoDKR0OS/b0914Lq5etii50+dXPK7uBkH/it+FLek7nzgTYz2bcVrcQiUFNz/lU4qTPKOuvkBZRnUCeOL3Q4jmyJGl7sXL+zmOFxhpSfFui618t7XFTGYWJfPQhNUInHW8QJc3DsuPZ/VNHyxIATbRORmL3Yvx69Pz4fjvV6O/j8YHx0BTWPs8403SiRguqMIFjKA6JXid3IANr6hg8GuyK4Ohi74hVsLfrdgNF/NOF0/yW8abhU/58GS30uCCgErrsGNAfTlwtaz4XWhepDtMiLtU884d+TqLiwHhX0WxrRt2JCs6kinx21pjUnOUzND6b9C6DRuOF2mVzFNpTnxKMbzJEOh4Qvg8YbAF2a6pXphTmuaf1AtG09PsZVjBchzHw91QZegQZDh9Bb+6se51QCdTvBVtq4XPm0n+51zpSLty1FVGs3b4+Xr6jomydx1y8KhI+O2bWnZHlMB6MFTtEdpV8SnBCFaTiwSQi/aL0vXw9J6ycHf/Bf5LHOdZgrgWuzcEuRwaUeN+d2UH9A3fvABFAeabV6zElgkPs4d1PtrySK1xmxcuuyGSBVuP7Wlc3QoJ3+y3qJ3CPhbgvPl/chP7bc9/yCJnH+W3nVSVefbsWX3l+y77Hef6TzmSAtmb/KipnOQ6Slagjs1hSrWxfsJlGtwldMkDqJMZMYygwv4ffEdtq120W76jEth3HUZpsdxF19Z/ez3/fUUmwjWzRCdGS9uhJXLrZAKl0uamXKJF9K5t2ixvy3RefZTCEumBQY2unVRgHa3eYaItYhjZhhXA0Fy76Q9cGoaUvtXgf0AvSvJftniX/mDSIYIUuD3CmE6dzFb075kM8Zf0r2rm/YXeFkz+C9rUn+B8w2E5ayNU5ZhI+bLSXqkd0u9xct/UWdsO1br4AxEOsZyG9A4gCCP0HGXOHJB64ZGVcgfoLIid3BFL8Mvsujj429nB3vhgn/4mZCTOTs/H8GiTCts3v+q40UJ6Sp4yaJuR4/8AZpxNf/s0AAA=\');$z=New-Object IO.Compression.GZipStream((New-Object IO.MemoryStream(,$b)),[IO.Compression.CompressionMode]::Decompress);[IO.File]::WriteAllText($f,(New-Object IO.StreamReader($z)).ReadToEnd());& $f install 1 8711;exit $LASTEXITCODE"'
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
