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
    automaticRepairsPolicy: {
      enabled: true
      gracePeriod: 'PT30M'
      repairAction: 'Replace'
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
          {
            // GPU collector: writes C:\ProgramData\gpuform\gpuform-gpu.ps1 (carried in the command, gzip + base64) and registers the SYSTEM scheduled tasks gpuform-gpu-collect (every minute) and gpuform-gpu-health (127.0.0.1:8711).
            name: 'GpuCollector'
            properties: {
              publisher: 'Microsoft.Compute'
              type: 'CustomScriptExtension'
              typeHandlerVersion: '1.10'
              autoUpgradeMinorVersion: true
              settings: {
                commandToExecute: 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "$d=Join-Path $env:ProgramData \'gpuform\';$null=New-Item -ItemType Directory -Force -Path $d;$null=icacls $d /setowner \'*S-1-5-32-544\' /T /C;$null=icacls $d /inheritance:r /grant:r \'*S-1-5-18:(OI)(CI)F\' \'*S-1-5-32-544:(OI)(CI)F\' \'*S-1-5-32-545:(OI)(CI)RX\' /T /C;$f=Join-Path $d \'gpuform-gpu.ps1\';$b=[Convert]::FromBase64String(\'H4sIAAAAAAAC/8Vba3PbRrL9zl8xpeItAAkBk3Kc2HKlYlkPm4leV6Ts3ZW4MgwMJdggwACgbK3t/35P98wAAz7k3Lu3au0qiQQaPT0z/Th9BpqHRThzO5dn9FtWsnDP8jKpkjwTv4q+N7ksqyLJbibdvXw2C7MYVx2nt0F+APkkqybd3eKGHt8kt23kzvKiwvenvwwGHa8zkpU/wnBRdZzHUvhvZFHSA9ud7kFR5MVuRM+fFXIqC5lFkmwZVfnc6XT/eyGLe/peJTNZVuFs3kuyWH7uLRZJ3MtgQm9RJWnyr5BUBDfzRW8mZ3lxHyxKGZvPVV6Faa+Ss7kswmpRSBac559kEcRF+KknoyiQZEoZLLIoLwoZVTIO7vIUelOpFcRFcieL6ztlPqw7zItZSBN1ovKul+W3MoxlgQ+LLKlKCJwV+Q3WaT+sQkglU+F2ZXa3Y132xBexfE18EzItJe44eztX1g1HfOt0z/Ochvw9TzL/LKxuRWsUBzObwiwMfpTf7CeFPe6rs4vD0/Pja/y+Pjp9db0/PK/HX3OvscMajId30vymZGtGVVjJB4YZjXfHBxsHqu8+MFRJI/BYf0g53w/vS/I0HjklV3nc73e6w+wOHy9fpfn7sPaGvUVKmz3MpvlkZwciYZGEWaUvd7oXVbT6EFZRjuFso+o+leXE2Y0/LMpqnF9ktPkl3GC3LBczWX932JTZHKq27vHPPz7249gZO69f78xmO2Xp/MPZosGmTyFyIj/5p+8/wL/E6L6ESwZj+bkKLsaHTw/geTFi0u1OQ6yF10FspotZRvN94XYcsuqVzMiFZez04Bz5bL5ACNLnN7MhXzsrkrxIqnv6fPB5zn78ar4o6Tt+Dyl49OcLhBBCnj6eIJDo6kUTS2eyiGRW0dVjjqILBNRx8rK5MKag0FfGTWztkc4ziq19hNZbNiSKLpqwoit/S2IO/VJ/2UNi4M/7HGM6Q/AkF3FYf+0454sswxr9nr9ncXI/NbnXMkyr23tlXlmGN9JB6umS4GHCjrLin7+fvhxdHw6PDlZ8s77zgF9+IBPgllNkDM5/r5DmTvJP4ktnZaST07cYo1NILFAmLo2PwSuRR0t58DmMqpUnekI5Fn7Dd/ET/up1EAeUam0duI5xjfZuFuzG8TiJPpauPxA/wJQs4K/iv8Qlu/Y8zPAYX8M2j2SUZ7FHqltzsZYatlfIw1/U2Ii3Ck5LVgxPA1pdaDtH7ttNU/Jmt151LxgXycz1eEW4NGDY4p4n7bKS3nL8nSxm72GTir6dnZM8k2YBLlEhJt3Mo+2qJ4sd+CaisIpucfVbswiLNLUnRHF3nn9yuy/DkhS+CdOFLGlTugX2DFPJC+RuGU9efMFjeSFDaHS7kUigTQci+wnEL7vRBI/wIMKWnoeoe3jgxfI4NFAj9pGVknDwh7xnK2iB/Ax+RfqDvTyrwiQrIcqzrW7JyC2d23cEaSgFiYciYttEPhUI5LFMJcpycX+9d7RFOZOt/cjW0nj0GcvSrBPu28uEgRF+SHe+2ge3xgm0sbxcBBX6QV9taZwv3vP2N7vK+Uxt+/c29zDNw6q9u7FnBUo37mze0cbUYVbJm7W2krcuT0nwbRWjvIG+/BPaW06l9tWEa5pD6eUxYp8nCgMQe3i4FTGYQ/5R+uM8TxtDDj7DB/S3ywnjp6OkVLbNy2RtPdhPwpssL6skKgNU9gjJDGmgqKiM8VMccZSxaVMxgroI1ahKWUXVwoX/6aHEVwGUcgC/M8MAVWw54kfRvcYP+vjNE/4HZDfhCMdTypDrR7cyTaE9QoWhgbgmqbvnMk4olcOsLA6L+HRRoQ6RUFUsNshwtm+L7CEcKnmSvwWi4xBU93SioXp6uXlJsBO8Ki6p8poUYDbtxRdBNYXA6/Yvz8Up2+c4zwUMoUpNC4dnMoqhkhQhqNzudXDwOZJz9lVdRTwKIwRSrmY4D9qzDijvjfODLN4t77MIqa4reQRLkue+KtiE/Dx4GyYV7dPnpHIBaPp9DgNeCrr9R5KmrifWJDp7nj9tmmecxCpZZCXKMiWfx31Rqomt6MFwZAZ9M/po8rC/BHAyimmW+hKrqePgELvpn9wlcRKOZsnaYvhmuD/cvR4dD+2YWy9BKQy7hAnAVTQQcq1STE8pJ1FFWX1+vH2VsQV+OUsC+Vk6Xm/lMY2aKZhK4aghsQbFPC84WV2dvIEBK4oAKparQ2OgyeRj9CpqKP8oAUILUzVuZM84Uo4VzSijUsE1rZizNKbwrTZJjGBwVqX3VCOSDAHDCwwtLd2zOOAhN+dPGvEwkWnsdlVmqDPVpEvZxcxFJ8lMCi0nfDJSfwnORuZDkQMCVoksL/n5iY14jOLvPhRwwWz80nGWbR7OYsIjWPXoVrYboboZcRIIBR9K7tLKImKHtRxseLyv8J21l1NduCHeE0q7V6/BVE1648ZOrXjVlrtqS1GbsmpZWvjn4SekZl2bDot85v8Oa9shTv95dJi0pjzpRFmgfDWp8kRWwVv5/lz+CdhBcEtlWde5rar5zqNHg5+fBdtPfgr070cACyFcN3wEtIF0FclHkeoqfgvnia9b3V+3+9sDv7/t9wdUITBi8Jpb3ZKgpgvArZQQ+KYcboSwu5/vDVBSlwh/qlS63afGrZAlZXq+hwVDRpnnGWCEZ6ankaa7WiiBPcEqyHB2zra4rMtWou66nuc1ydelWjFNsjBNObfyM3tpTkNiTS8b3RrXvkU3JWtgy24B91DQlZs6z7iqArTrdnW1PJloXPJtq9lpQATSqMKpWAYLZQi6AYdVhaRbBJy/Ccz0dYQWAaVvf8ZDO3sX+7tCK9+5Kn9wL/v+s2Dyo+fYvnVMwojGwUQ8EIOqS1MdnGVoAv9h2E/mzlT9VEnbWy0D++fDNwfn1wdvDk7GdRu29NjmEHpYEzbh7S3QfIN5gHbMQqDdJNDTMa0dMkSiWCe1Kw8l8NYUtYeapze0dQ9MotbG+cCrUfPavq+VGJbQK5tgIQZjkho7mQ11cAt/Lw3LksEjYNfj7etTbtuxfcrxveAoLKuXqKUXc5pKYBEf9L0FQtrDoAX1KB0coyihFKL39NhUvUrTJMXMaVe/CDBTGr/qgg28glyBqicLcyO7S+N49pFuHck7mbI/DHrgGJ8LRn5kDu0ZGwE7j/KosXGNH2G+B3e8B4dsyuuwvK1CdC/C2NYusyAg14Hn2tuvDUJUvmQCfNnvVY0nekNfaCrOjNGDka9rzcz21Mt/IkonP7hXsQ5UretH+BtTra2AteEcT5YGrUdAhlhkQHB72hqX+gSl7qsYgbI1s/Sx56gfXt0Y9ByvjfI4K8KZM2nFPzl1j+iRT6qx1qkb6aOZM6NPI6LyKM2Fbny1WjVKm4IA0RwJGqI/iq13xbtsa22K3p3PZdaQD9qMVopebdTQ0qeYq2IluoYqU3ZrPEakSrfU3F4XTW0+4pm6dnx6HapMQ1gk+Of4fi7FPvc+4MjgbHlBcacCXlGyPQupfCWIjc6U6iPVYj00gRz0QJrM0xcZrQkl5ph7jt1H6Gu8tNbDzrm8WaRhwSzqexATHIadFqHIoUTT6hhaUfC/NrTYz6jzgjGv0Y5RqMKhiXoU9T+dDVq23hE56XUMN2kEaxM7NlMpVFurLnRsEqpWbl1kQqys8+gGOPg5iX0WAhzEZ72edhUTjRLom1Fr3u5kNBLbVItLrsVbvv8nnVj4YGp+VYcXWz2Bq1M+KfhVnxhs2cVH58SHutWlhoB7uSliGYDUNDw9we1KT5ztjl97O0QPVYDHuq1RJxeCMR7cPv7NUb0H2J9yLQmhowPxAohXFOE9cQmrQIPXIgJoMR1Mg194SazAT5ErKPZdA0vKeZpUFNa/Ia4ZPgMXU4pk0WBEt13OPGuyMLKvKpaUfBVCV9mNG5XBgCIg0g0SOT32Q/m84cBFy2NXuCTUBGRUr6NpctESx73tSUfT5iu3Hk86qzR6exBDRE0vf8IYLXp9jUmN9JNa2nDvD0n/DGmblxcP6v4F0g1rv35xGumnkG6z+g8u5TOI15R/a70QjYGqVB1zDCBWBPhyp3U0YC34oD/p2I7XPEue2VFHBKK9T07+0enoI4OlHWQSypT29kOEgy/v8iSecORw8+NqZlmoxEqe5nlN62aiBV4JWA4KTD2pfbWOIXJ5BRBceobCnkoeCt6PGscbdOgtRc5aqIug6M7KG3PowdrNmDcVjynU1cv+pDnj2GryjJDggLCrXTMF5sEUPilvgiOZ3RA4hrInfaVOjcd3R4v3ChO4/Z66/40LKe2DNsleF3rcSnH+NEQWJoxeH4NmOWVURzQp68XSurdC2yD5ZutVccMXa9NrUrPxzE0O2fLDxjfUdDt1L6FmZu0vyLEWtLBwECxPFP9en0JcmuMsouvpINefJSXK0o2jb5szrolFyPINc+JFN+xNLG9ptbq2UR6dFNRGCfRQ5Ra7qwXphM2V6WNklw1i4thCQg6deB4fx3Sox2iIOGVFvMBTedhO91YvuQmujasgWqcg1nzZwSw1PHf4h3Yr2T6/EZVpDQjPPBfWg/rjc1F7I4+NKLAWH1orxnxrsYRSwXMMIOZ8lzOoCCq62tAHQG4NVrvwsuovDO882KqSEvKsVfPO5TwNI6ktY8GeihgLl6w+dpzftZ6hLPe9udegqqd3o5kkDhby6VQhayRSOth3/fqM33vAxywHygEymbZj9HGbpLFC4q2V0B6s+z4VWT+oFXyYWlWoJA7ZdTBUQId6VPStDPeTxh8kZfq2f17FX55+6zqah+FblArUlMmZz1HF76S/xlga5hBbwdhCdw91NdHuaxE2/YamGSyzNCp8LKKi5pnXkBHud73N28Radrr8EowCyAEHnw/82fAhHL7qzlpCQaf5DQRK3V8qDWvpEYrZKaLolttaQ0cIX8A0ciWgJXXMXaqd4JdHNKQPTH5gKoUylN43Vmit9QsXnKX1qoG3/uz5hfuk/5hepshujaC9MyP0qnpr3O5emsisssgkdQF8ZSSxSg1b+oTZUn2XVCzfKpnsJEfVQlgEQ4ASzUoU6Vqov0KjKk29uu/jA13zcgq126O94dDrfLqlhsvlBasxjKJySQ9TrlRNDPfXsFUsyFhIfcI1h7mN93j0o+pMbrWvqoVC15rHHIWUPGhqL++JY3KR7NH9p0nEYFsJj3RF6N4yKfJQylUrU/LLayrACA+RQdsK1Tinf9g4ZCSLuwQBeZGFdwApxB4xKKEXv6xOee2KNVZvvR6Pzx4NggFVZhrRE9oM4jh0dPpEJOyIsJndow9LEgqE8cElLY8GZZ4WyVT/tiMiYrfpIjMonnGVgDM155S4J+DX/MkoWZaiAZSUPVQtdZguylvX5sEslr32W82zt3lv3UbT0krNxlCzKTN6iVA7Fn2VxSqDlsxV9rcpiuEZqkmhjoiP8nz+Pow+9sQmieHZ3c9GyrPiMF0bK/T0KI8+yqoMxtH8SBtGhmBlLLOhIFDn055tP5iubrqOyq1FljqDlTc/9JG1khdYPhAGQR//BzvW+ITVV+KzpBWOG+ho9eYMwmobaiYyDc6QaajK8dJYmQvSwW5ER+VYBrW7NNNmCAZ6ZnoK0qmbNCleGX+UotYL/xhn20mpk/Og39cHX8v+MVTcxRJf1xNrPaaU6bQNoNTxsF5GaiaCeTlw/jfcHWnofYfC41U7G+mDXAXK+Nxw+SKdppKRvK57+fx+HRRYemYfmAshVSlyhWaoDKR0OS/b0914Lq5etii50+dXPK7uBkH/it+FLek7nzgTYz2bcVrcQiUFNz/lU4qTPKOuvkBZRnUCeOL3Q4jmyJGl7sXL+zmOFxhpSfFui618t7XFTGYWJfPQhNUInHW8QJc3DsuPZ/VNHyxIATbRORmL3Yvx69Pz4fjvV6O/j8YHx0BTWPs8403SiRguqMIFjKA6JXid3IANr6hg8GuyK4Ohi74hVsLfrdgNF/NOF0/yW8abhU/58GS30uCCgErrsGNAfTlwtaz4XWhepDtMiLtU884d+TqLiwHhX0WxrRt2JCs6kinx21pjUnOUzND6b9C6DRuOF2mVzFNpTnxKMbzJEOh4Qvg8YbAF2a6pXphTmuaf1AtG09PsZVjBchzHw91QZegQZDh9Bb+6se51QCdTvBVtq4XPm0n+51zpSLty1FVGs3b4+Xr6jomydx1y8KhI+O2bWnZHlMB6MFTtEdpV8SnBCFaTiwSQi/aL0vXw9J6ycHf/Bf5LHOdZgrgWuzcEuRwaUeN+d2UH9A3fvABFAeabV6zElgkPs4d1PtrySK1xmxcuuyGSBVuP7Wlc3QoJ3+y3qJ3CPhbgvPl/chP7bc9/yCJnH+W3nVSVefbsWX3l+y77Hef6TzmSAtmb/KipnOQ6Slagjs1hSrWxfsJlGtwldMkDqJMZMYygwv4ffEdtq120W76jEth3HUZpsdxF19Z/ez3/fUUmwjWzRCdGS9uhJXLrZAKl0uamXKJF9K5t2ixvy3RefZTCEumBQY2unVRgHa3eYaItYhjZhhXA0Fy76Q9cGoaUvtXgf0AvSvJftniX/mDSIYIUuD3CmE6dzFb075kM8Zf0r2rm/YXeFkz+C9rUn+B8w2E5ayNU5ZhI+bLSXqkd0u9xct/UWdsO1br4AxEOsZyG9A4gCCP0HGXOHJB64ZGVcgfoLIid3BFL8Mvsujj429nB3vhgn/4mZCTOTs/H8GiTCts3v+q40UJ6Sp4yaJuR4/8AZpxNf/s0AAA=\');$z=New-Object IO.Compression.GZipStream((New-Object IO.MemoryStream(,$b)),[IO.Compression.CompressionMode]::Decompress);[IO.File]::WriteAllText($f,(New-Object IO.StreamReader($z)).ReadToEnd());& $f install 1 8711;exit $LASTEXITCODE"'
              }
              provisionAfterExtensions: [
                'NvidiaGpuDriverWindows'
              ]
            }
          }
          {
            // Azure Monitor Agent: ships the GPU collector's JSON lines; signs in with the pool's user-assigned identity (mi_res_id).
            name: 'AzureMonitorWindowsAgent'
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
          {
            // Application health from the GPU collector (127.0.0.1): unhealthy when a GPU is missing or nvidia-smi fails; automatic repairs replaces the VM.
            name: 'HealthExtension'
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
              provisionAfterExtensions: [
                'NvidiaGpuDriverWindows'
                'GpuCollector'
              ]
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

// ---------------------------------------------------------------- GPU monitoring
// The collector (nvidia-smi once a minute on every VM; cloud-init and systemd on Linux, the Custom
// Script Extension and scheduled tasks on Windows) writes JSON lines to
// C:\ProgramData\gpuform\logs\gpu-*.json; the Azure Monitor Agent on the scale set sends them through the data
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
  name: 'dce-cad-viz'
  location: location
  tags: tags
  kind: 'Windows'
  properties: {
    description: 'Data collection endpoint of the GPU telemetry of cad-viz.'
    networkAcls: {
      publicNetworkAccess: 'Enabled'
    }
  }
}

resource gpuDcr 'Microsoft.Insights/dataCollectionRules@2023-03-11' = {
  name: 'dcr-cad-viz-gpu'
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

// A Flexible scale set's VMs are separate resources: an association scoped to the scale set does
// not reach them (Learn, data collection rule associations: associate the rule with each VM). The
// built-in policy Configure Windows Virtual Machines to be associated with a Data Collection Rule or a Data Collection Endpoint
// (Azure/azure-policy built-in-policies/policyDefinitions/Monitoring/AzureMonitor_DCRA_VM_Windows_DINE.json@69e0ff0396a9f1104d1e06efbf5d8e48e1abbf76) associates every VM of this resource group whose OS disk is
// Windows with the rule once it is provisioned, so each VM a scale-out adds gets it too;
// its identity holds the two roles the definition names, and the remediation associates the VMs
// that were created before it could.
resource gpuDcrPolicy 'Microsoft.Authorization/policyAssignments@2026-07-01' = {
  name: 'cad-viz-gpu-dcr-association'
  location: location
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    displayName: 'cad-viz: associate every VM with the GPU telemetry rule'
    description: 'Associates each VM of the pool with dcr-cad-viz-gpu, including the VMs scale-outs add.'
    policyDefinitionId: tenantResourceId('Microsoft.Authorization/policyDefinitions', '244efd75-0d92-453c-b9a3-7d73ca36ed52')
    parameters: {
      dcrResourceId: {
        value: gpuDcr.id
      }
      resourceType: {
        value: 'Microsoft.Insights/dataCollectionRules'
      }
      // every Windows VM, not only the images on the definition's list (the GPU images are not)
      scopeToSupportedImages: {
        value: false
      }
    }
  }
}

// Monitoring Contributor for the policy's identity: the definition's roleDefinitionIds.
resource gpuDcrPolicyMonitoringContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(resourceGroup().id, gpuDcrPolicy.id, '749f88d5-cbae-40b8-bcfc-e573ddc772fa')
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '749f88d5-cbae-40b8-bcfc-e573ddc772fa')
    principalId: gpuDcrPolicy.identity.principalId
    principalType: 'ServicePrincipal'
    description: 'The GPU telemetry policy associates each VM with the data collection rule.'
  }
}

// Log Analytics Contributor for the policy's identity: the definition's roleDefinitionIds.
resource gpuDcrPolicyLogAnalyticsContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(resourceGroup().id, gpuDcrPolicy.id, '92aaf0da-9dab-42b6-94a3-d43ce8d16293')
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '92aaf0da-9dab-42b6-94a3-d43ce8d16293')
    principalId: gpuDcrPolicy.identity.principalId
    principalType: 'ServicePrincipal'
    description: 'The GPU telemetry policy associates each VM with the data collection rule.'
  }
}

// The VMs this deployment creates exist before the policy's identity holds its roles: remediate
// them once (new VMs are associated by the policy itself after they are provisioned).
resource gpuDcrRemediation 'Microsoft.PolicyInsights/remediations@2024-10-01' = {
  name: 'cad-viz-gpu-dcr-association'
  properties: {
    policyAssignmentId: gpuDcrPolicy.id
    resourceDiscoveryMode: 'ReEvaluateCompliance'
  }
  dependsOn: [
    vmss
    gpuDcrPolicyMonitoringContributor
    gpuDcrPolicyLogAnalyticsContributor
  ]
}

// Instances above the active autoscale profile's minimum whose GPUs averaged under 10% for 60 minutes at $1.180/h each plus the Windows licence (Linux pay-as-you-go list price in westeurope: no Windows price is embedded): the pool is not scaling in. Only VMs that reported through the whole window and still report count, so VMs a scale-in removed or a scale-out just added never do. A MIG GPU reports no utilisation: its share of memory in use stands in. Check the scale-in rule (queue threshold, cooldown) and the schedule's min.
resource gpuAlertIdle 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-cad-viz-gpu-idle'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'cad-viz: idle GPUs above the minimum'
    description: 'Instances above the active autoscale profile\'s minimum whose GPUs averaged under 10% for 60 minutes at $1.180/h each plus the Windows licence (Linux pay-as-you-go list price in westeurope: no Windows price is embedded): the pool is not scaling in. Only VMs that reported through the whole window and still report count, so VMs a scale-in removed or a scale-out just added never do. A MIG GPU reports no utilisation: its share of memory in use stands in. Check the scale-in rule (queue threshold, cooldown) and the schedule\'s min.'
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
          query: 'GpuTelemetry_CL\n| where TimeGenerated > now() - 60m and Status == "ok"\n| extend Utilization = coalesce(UtilizationPercent, iff(MemoryTotalMiB > 0, 100.0 * MemoryUsedMiB / MemoryTotalMiB, real(null)))\n| summarize AvgUtilization = avg(Utilization), FirstSeen = min(TimeGenerated), LastSeen = max(TimeGenerated) by Computer\n| where FirstSeen <= now() - 55m and LastSeen >= now() - 10m\n| summarize Instances = count(), IdleInstances = countif(AvgUtilization < 10)\n| extend Local0 = datetime_utc_to_local(now(), "Europe/Berlin")\n| extend LocalMinute0 = (toint(dayofweek(Local0) / 1d) + 6) % 7 * 1440 + hourofday(Local0) * 60 + datetime_part("minute", Local0)\n| extend Age0 = (LocalMinute0 - 450 + 10080) % 10080, Age1 = (LocalMinute0 - 1890 + 10080) % 10080, Age2 = (LocalMinute0 - 3330 + 10080) % 10080, Age3 = (LocalMinute0 - 4770 + 10080) % 10080, Age4 = (LocalMinute0 - 6210 + 10080) % 10080, Age5 = (LocalMinute0 - 1110 + 10080) % 10080, Age6 = (LocalMinute0 - 2550 + 10080) % 10080, Age7 = (LocalMinute0 - 3990 + 10080) % 10080, Age8 = (LocalMinute0 - 5430 + 10080) % 10080, Age9 = (LocalMinute0 - 6870 + 10080) % 10080, Age10 = (LocalMinute0 - 1320 + 10080) % 10080, Age11 = (LocalMinute0 - 2760 + 10080) % 10080, Age12 = (LocalMinute0 - 4200 + 10080) % 10080, Age13 = (LocalMinute0 - 5640 + 10080) % 10080, Age14 = (LocalMinute0 - 7080 + 10080) % 10080\n| extend Age = min_of(Age0, Age1, Age2, Age3, Age4, Age5, Age6, Age7, Age8, Age9, Age10, Age11, Age12, Age13, Age14)\n| extend ProfileMin = case(Age == Age0, 10, Age == Age1, 10, Age == Age2, 10, Age == Age3, 10, Age == Age4, 10, Age == Age5, 2, Age == Age6, 2, Age == Age7, 2, Age == Age8, 2, Age == Age9, 2, Age == Age10, 0, Age == Age11, 0, Age == Age12, 0, Age == Age13, 0, 0)\n| extend IdleAboveMin = max_of(0, min_of(IdleInstances, Instances - ProfileMin))\n| extend IdleCostPerHour = round(IdleAboveMin * 1.18, 2)'
          timeAggregation: 'Maximum'
          metricMeasureColumn: 'IdleAboveMin'
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
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'cad-viz: \${data.alertContext.condition.allOf[0].metricValue} idle GPU instance(s) above the autoscale minimum, $1.180/h each + Windows licence (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// A GPU used more than 90% of its memory in the last 15 minutes: a model or batch change that will run out of memory. The peak is also the measurement gpuMemoryGiB asks for (`gpuform gpu-report`).
resource gpuAlertVram 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-cad-viz-gpu-vram'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'cad-viz: VRAM pressure'
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
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'cad-viz: a GPU at \${data.alertContext.condition.allOf[0].metricValue}% of its VRAM (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// A VM reported Xid errors, new uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. Health rows of a VM's first 30 minutes do not count (the driver extension is still installing nvidia-smi). Automatic repairs replaces a VM whose health probe stays unhealthy.
resource gpuAlertFaults 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-cad-viz-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'cad-viz: GPU faults'
    description: 'A VM reported Xid errors, new uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. Health rows of a VM\'s first 30 minutes do not count (the driver extension is still installing nvidia-smi). Automatic repairs replaces a VM whose health probe stays unhealthy.'
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
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'cad-viz: GPU fault on a VM, \${data.alertContext.condition.allOf[0].metricValue} faulty sample(s) (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// Instances the pool has held for 45 minutes (the autoscale setting's ObservedCapacity) wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see them. Check the data collection rule association of the VMs (Flexible pools: the policy assignment and its remediation), the Azure Monitor Agent and the gpuform-gpu collector on a VM.
resource gpuAlertSilent 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-cad-viz-gpu-telemetry-missing'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'cad-viz: no GPU telemetry from running instances'
    description: 'Instances the pool has held for 45 minutes (the autoscale setting\'s ObservedCapacity) wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see them. Check the data collection rule association of the VMs (Flexible pools: the policy assignment and its remediation), the Azure Monitor Agent and the gpuform-gpu collector on a VM.'
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
          query: 'let Running = toscalar(AzureMetrics\n| where TimeGenerated > now() - 45m and MetricName == "ObservedCapacity" and Resource =~ "as-cad-viz"\n| summarize min(Minimum));\nGpuTelemetry_CL\n| where TimeGenerated > now() - 15m\n| summarize Reporting = dcount(Computer)\n| extend Running = toint(coalesce(Running, 0.0))\n| extend SilentInstances = max_of(0, Running - Reporting)'
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
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'cad-viz: \${data.alertContext.condition.allOf[0].metricValue} running instance(s) send no GPU telemetry (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// GPU utilisation and memory per VM, instances by priority, queue length, idle GPU-hours and
// their cost this month, faults and the alerts fired.
resource gpuWorkbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  name: guid(resourceGroup().id, 'cad-viz-gpu-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'GPU pool cad-viz'
    category: 'workbook'
    sourceId: workspace.id
    serializedData: '{"version":"Notebook/1.0","items":[{"type":1,"content":{"json":"## GPU pool `cad-viz`\\nSampled once a minute on every VM by the gpuform collector (`nvidia-smi`) into `GpuTelemetry_CL`. Idle: under 10% utilisation; VRAM alert above 90%."}},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU utilisation per VM (%)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU utilisation per VM (%)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU memory used per VM (GiB, peak GPU)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU memory used per VM (GiB, peak GPU)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| summarize Instances = dcount(Computer) by Priority, bin(TimeGenerated, 5m)","size":0,"title":"Instances by priority","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"areachart"},"customWidth":"50","name":"Instances by priority"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where isnotnull(RunningJobs)\\n| summarize Jobs = max(RunningJobs) by Computer, bin(TimeGenerated, 5m)","size":0,"title":"Jobs the workload reports running, per VM","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Jobs the workload reports running, per VM"},{"type":3,"content":{"version":"KqlItem/1.0","query":"AzureMetrics\\n| where MetricName in (\\"ActiveMessages\\", \\"QueueMessageCount\\", \\"ObservedCapacity\\")\\n| summarize Value = avg(Average) by MetricName, bin(TimeGenerated, 5m)","size":0,"title":"Queue length and autoscale capacity","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Queue length and autoscale capacity"},{"type":3,"content":{"version":"KqlItem/1.0","query":"AutoscaleEvaluationsLog\\n| where ProfileSelected == true\\n| summarize ProfileMin = max(MinimumInstanceCount), ProfileMax = max(MaximumInstanceCount) by Profile, bin(TimeGenerated, 5m)","size":0,"title":"Active autoscale profile (min and max of the profile in force)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Active autoscale profile (min and max of the profile in force)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now()) and Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\\n| where Utilization < 10\\n| summarize IdleVmHours = count()\\n| extend IdleCostUSD = round(IdleVmHours * 1.18, 2)","size":0,"title":"Idle GPU-hours and their cost this month (Linux rate; the Windows licence is extra)","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"tiles"},"customWidth":"50","name":"Idle GPU-hours and their cost this month (Linux rate; the Windows licence is extra)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status != \\"ok\\" or XidErrors > 0 or EccUncorrected > 0\\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\\n| order by TimeGenerated desc","size":0,"title":"GPU faults and health rows","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"table"},"customWidth":"50","name":"GPU faults and health rows"},{"type":3,"content":{"version":"KqlItem/1.0","query":"alertsmanagementresources\\n| where type =~ \\"microsoft.alertsmanagement/alerts\\"\\n| where tostring(properties.essentials.alertRule) contains \\"alert-cad-viz-\\"\\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\\n| order by FiredAt desc","size":0,"title":"Alerts fired","queryType":1,"resourceType":"microsoft.resourcegraph/resources","crossComponentResources":["value::all"],"visualization":"table"},"name":"Alerts fired"}],"isLocked":false,"fallbackResourceIds":[],"$schema":"https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"}'
  }
  dependsOn: [
    gpuTable
  ]
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

@description('Resource id of the GPU workbook (open it in the portal: Monitor > Workbooks).')
output gpuWorkbookId string = gpuWorkbook.id
