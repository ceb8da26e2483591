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
                commandToExecute: 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "$d=Join-Path $env:ProgramData \'gpuform\';$null=New-Item -ItemType Directory -Force -Path $d;$null=icacls $d /setowner \'*S-1-5-32-544\' /T /C;$null=icacls $d /inheritance:r /grant:r \'*S-1-5-18:(OI)(CI)F\' \'*S-1-5-32-544:(OI)(CI)F\' \'*S-1-5-32-545:(OI)(CI)RX\' /T /C;$f=Join-Path $d \'gpuform-gpu.ps1\';$b=[Convert]::FromBase64String(\'H4sIAAAAAAAC/8VbaXPbSJL9zl9RoeAGgDYBk3IfthwdbVmHzW5dK1L2zEgcGQaKEmwQYAOgbI3t/74vs6qAAg+5d2cjxo6QSCCRlVWVx8tX0DwswpnbuTyj37KShXuWl0mV5Jn4VfS9yWVZFUl2M+nu5bNZmMW46ji9DfIDyCdZNenuFjf0+Ca5bSN3lhcVvj/9ZTDoeJ2RrPwRhouq4zyWwn8ji5Ie2O50D4oiL3Yjev6skFNZyCySZMuoyudOp/vfC1nc0/cqmcmyCmfzXpLF8nNvsUjiXgYTeosqSZN/haQiuJkvejM5y4v7YFHK2Hyu8ipMe5WczWURVotCsuA8/ySLIC7CTz0ZRYEkU8pgkUV5UcioknFwl6fQm0qtIC6SO1lc3ynzYd1hXsxCmqgTlXe9LL+VYSwLfFhkSVVC4KzIb7BO+2EVQiqZCrcrs7sd67Invojla+KbkGkpccfZ27mybjjiW6d7nuc05O95kvlnYXUrWqM4mNkUZmHwo/xmPynscV+dXRyenh9f4/f10emr6/3heT3+mnuNHdZgPLyT5jclWzOqwko+MMxovDs+2DhQffeBoUoagcf6Q8r5fnhfkqfxyCm5ypN+v9MdZnf4ePkqzd+HtTfsLVLa7GE2zSc7OxAJiyTMKn25072ootWHsIpyDGcbVfepLCfObvxhUVbj/CKjzS/hBrtluZjJ+rvDpszmULV1j3/+8bEfx87Yef16ZzbbKUvnH84WDTZ9CpET+ck/ff8B/iVG9yVcMhjLz1VwMT58egDPixGTbncaYi28DmIzXcwymu8Lt+OQVa9kRi4sY6cH58hn8wVCkD6/mQ352lmR5EVS3dPng89z9uNX80VJ3/F7SMGjP18ghBDy9PEEgURXL5pYOpNFJLOKrh5zFF0goI6Tl82FMQWFvjJuYmuPdJ5RbO0jtN6yIVF00YQVXflbEnPol/rLHhIDf97nGNMZgie5iMP6a8c5X2QZ1uj3/D2Lk/upyb2WYVrd3ivzyjK8kQ5ST5cEDxN2lBX//P305ej6cHh0sOKb9Z0H/PIDmQC3nCJjcP57hTR3kn8SXzorI52cvsUYnUJigTJxaXwMXok8WsqDz2FUrTzRE8qx8Bu+i5/wV6+DOKBUa+vAdYxrtHezYDeOx0n0sXT9gfgBpmQBfxX/JS7Ztedhhsf4GrZ5JKM8iz1S3ZqLtdSwvUIe/qLGRrxVcFqyYnga0OpC2zly326akje79ap7wbhIZq7HK8KlAcMW9zxpl5X0luPvZDF7D5tU9O3snOSZNAtwiQox6WYebVc9WezANxGFVXSLq9+aRVikqT0hirvz/JPbfRmWpPBNmC5kSZvSLbBnmEpeIHfLePLiCx7LCxlCo9uNRAJtOhDZTyB+2Y0meIQHEbb0PETdwwMvlsehgRqxj6yUhIM/5D1bQQvkZ/Ar0h/s5VkVJlkJUZ5tdUtGbuncviNIQylIPBQR2ybyqUAgj2UqUZaL++u9oy3KmWztR7aWxqPPWJZmnXDfXiYMjPBDuvPVPrg1TqCN5eUiqNAP+mpL43zxnre/2VXOZ2rbv7e5h2keVu3djT0rULpxZ/OONqYOs0rerLWVvHV5SoJvqxjlDfTln9Deciq1ryZc0xxKL48R+zxRGIDYw8OtiMEc8o/SH+d52hhy8Bk+oL9dThg/HSWlsm1eJmvrwX4S3mR5WSVRGaCyR0hmSANFRWWMn+KIo4xNm4oR1EWoRlXKKqoWLvxPDyW+CqCUA/idGQaoYssRj0T3Gj/o4zdP+B+Q3YQjHE8pQ64f3co0hfYIFYYG4pqk7p7LOKFUDrOyOCzi00WFOkRCVbHYIMPZvi2yh3Co5En+FoiOQ1Dd04mG6unl5iXBTvCquKTKa1KA2bQXXwTVFAKv2788F6dsn+M8FzCEKjUtHJ7JKIZKUoSgcrvXwcHnSM7ZV3UV8SiMEEi5muE8aM86oLw3zg+yeLe8zyKkuq7kESxJnvuqYBPy8+BtmFS0T5+TygWg6fc5DHgp6PYfSZq6nliT6Ox5/rhpnnESq2SRlSjLlHye9EWpJraiB8ORGfTN6KPJw/4SwMkoplnqS6ymjoND7KZ/cpfESTiaJWuL4Zvh/nD3enQ8tGNuvQSlMOwSJgBX0UDItUoxPaWcRBVl9fnJ9lXGFvjlLAnkZ+l4vZXHNGqmYCqFo4bEGhTzvOBkdXXyBgasKAKoWK4OjYEmk4/Rq6ih/KMECC1M1biRPeNIOVY0o4xKBde0Ys7SmMK32iQxgsFZld5TjUgyBAwvMLS0dM/igIfcnD9pxMNEprHbVZmhzlSTLmUXMxedJDMptJzwyUj9JTgbmQ9FDghYJbK85OcnNuIxir/7UMAFs/FLx1m2eTiLCY9g1aNb2W6E6mbESSAUfCi5SyuLiB3WcrDh8b7Cd9ZeTnXhhnhPKO1evQZTNemNGzu14lVb7qotRW3KqmVp4Z+Hn5CadW06LPKZ/zusbYc4/efRYdKa8qQTZYHy1aTKE1kFb+X7c/knYAfBLZVlXee2quY7jx8Pfn4WbP/0Y6B/PwZYCOG64WOgDaSrSD6OVFfxWzhPfN3q/rrd3x74/W2/P6AKgRGD19zqlgQ1XQBupYTAN+VwI4Td/XxvgJK6RPhTpdLtPjVuhSwp0/M9LBgyyjzPACM8Mz2NNN3VQgnsCVZBhrNztsVlXbYSddf1PK9Jvi7VimmShWnKuZWf2UtzGhJretno1rj2LbopWQNbdgu4h4Ku3NR5xlUVoF23q6vlyUTjkm9bzU4DIpBGFU7FMlgoQ9ANOKwqJN0i4PxNYKavI7QIKH37Mx7a2bvY3xVa+c5V+YN72fefBZNHnmP71jEJIxoHE/FADKouTXVwlqEJ/IdhP5k7U/VTJW1vtQzsnw/fHJxfH7w5OBnXbdjSY5tD6GFN2IS3t0DzDeYB2jELgXaTQE/HtHbIEIlindSuPJTAW1PUHmqe3tDWPTCJWhvnA69GzWv7vlZiWEKvbIKFGIxJauxkNtTBLfy9NCxLBo+AXU+2r0+5bcf2Kcf3gqOwrF6ill7MaSqBRXzQ9xYIaQ+DFtSjdHCMooRSiN7TY1P1Kk2TFDOnXf0iwExp/KoLNvAKcgWqnizMjewujePZR7p1JO9kyv4w6IFjfC4Y+ZE5tGdsBOw8yqPGxjV+hPke3PEeHLIpr8PytgrRvQhjW7vMgoBcB55rb782CFH5kgnwZb9XNZ7oDX2hqTgzRg9Gvq41M9tTL/+JKJ384F7FOlC1rkfwN6ZaWwFrwzmeLA1aj4AMsciA4Pa0NS71CUrdVzECZWtm6WPPUT+8ujHoOV4b5XFWhDNn0op/cuoe0SOfVGOtUzfSRzNnRp9GROVRmgvd+Gq1apQ2BQGiORI0RB+JrXfFu2xrbYrenc9l1pAP2oxWil5t1NDSp5irYiW6hipTdms8RqRKt9TcXhdNbT7imbp2fHodqkxDWCT45/h+LsU+9z7gyOBseUFxpwJeUbI9C6l8JYiNzpTqI9ViPTSBHPRAmszTFxmtCSXmmHuO3Ufoa7y01sPOubxZpGHBLOp7EBMchp0WocihRNPqGFpR8L82tNjPqPOCMa/RjlGowqGJehT1P50NWrbeETnpdQw3aQRrEzs2UylUW6sudGwSqlZuXWRCrKzz6AY4+DmJfRYCHMRnvZ52FRONEuibUWve7mQ0EttUi0uuxVu+/yedWPhgan5VhxdbPYGrUz4p+FWfGGzZxUfnxIe61aWGgHu5KWIZgNQ0PD3B7UpPnO2OX3s7RA9VgMe6rVEnF4IxHtw+/s1RvQfYn3ItCaGjA/ECiFcU4T1xCatAg9ciAmgxHUyDX3hJrMBPkSso9l0DS8p5mlQU1r8hrhk+AxdTimTRYES3Xc48a7Iwsq8qlpR8FUJX2Y0blcGAIiDSDRI5PfZD+bzhwEXLY1e4JNQEZFSvo2ly0RLHve1JR9PmK7eeTDqrNHp7EENETS9/xBgten2NSY30T7W04d4fkv4Z0jYvLx7U/QukG9Z+/eI00k8h3Wb1H1zKZxCvKf/WeiEaA1WpOuYYQKwI8OVO62jAWvBBf9KxHa95ljyzo44IRHufnPyj09FHBks7yCSUKe3thwgHX97lSTzhyOHmx9XMslCJlTzN85rWzUQLvBKwHBSYelL7ah1D5PIKILj0DIU9lTwUvEcaxxt06C1Fzlqoi6Dozsobc+jB2s2YNxWPKdTVy/6kOePYavKMkOCAsKtdMwXmwRQ+KW+CI5ndEDiGsp/6Sp0aj++OFu8VJnD7PXX/GxdS2gdtkr0u9LiV4vxpiCxMGL0+Bs1yyqiOaFLWi6V1b4W2QfLN1qvihi/WptekZuOZmxyy5YeNb6jpdupeQs3M2l+QYy1oYeEgWJ4o/r0+hbg0x1lE19NBrj9LSpSlG0ffNmdcE4uQ5RvmxItu2JtY3tJqdW2jPDopqI0S6KHKLXZXC9IJmyvTx8guG8TEsYWEHDrxPD6O6VCP0RBxyop4gafysJ3urV5yE1wbV0G0TkGs+bKDWWp47vAP7VayfX4jKtMaEJ55LqwH9cfnovZGHhtRYC0+tFaM+dZiCaWC5xhAzPkuZ1ARVHS1oQ+A3BqsduFl1V8Y3nmwVSUl5Fmr5p3LeRpGUlvGgj0VMRYuWX3sOL9rPUNZ7ntzr0FVT+9GM0kcLOTTqULWSKR0sO/69Rm/94CPWQ6UA2Qybcfo4zZJY4XEWyuhPVj3fSqyflAr+DC1qlBJHLLrYKiADvWo6FsZ7keNP0jK9G3/vIq/PP3WdTQPw7coFagpkzOfo4rfSX+NsTTMIbaCsYXuHupqot3XImz6DU0zWGZpVPhYREXNM68hI9zvepu3ibXsdPklGAWQAw4+H/iz4UM4fNWdtYSCTvMbCJS6v1Qa1tIjFLNTRNEtt7WGjhC+gGnkSkBL6pi7VDvBL49oSB+Y/MBUCmUovW+s0FrrFy44S+tVA2/92bMRu8hujaC9MyP0qnpr3O5emsisssgkdQF8ZSSxSg1b+hOzpfouqVi+VTLZSY6qhbAIhgAlmpUo0rVQf4VGVZp6dd/HB7rm5RRqt0d7w6HX+XRLDZfLC1ZjGEXlkh6mXKmaGO6vYatYkLGQ+oRrDnMb7/HoR9WZ3GpfVQuFrjWPOQopedDUXt4Tx+Qi2aP7T5OIwbYSHumK0L1lUuShlKtWpuSX15zTPxyuVbHV866dezP+1uvx+OzxIBhQjb1FFfGEVkhshY4znyiBHRE2dj7+sCSh4BQfQdJENbzytEimOrEdERFPTReZC/HMpgecczk7xD0B1+NPRsmyFA2gpOyhaqnDdFHeujajZfHltQdqxrzNYOuGeCQLFArFq1DbKDN6HVC7CH2VxSoXlsxVHrfJhuEZ6kKhDnuP8nz+Pow+9sQmieHZ3c9GyrMiKl3r9fT0KI8+yqoMxtH8SBtGhmBlLLOhIFAnzZ5tPzirbrqOlK1FljD+yjsc+vBZyQssH1r/oI//gx1rfELdK5FW0grHDQi0umyGU7UNNaeYBmfIGVSveGmsHATpYDeiQ28sg9pdmmkzBEM2Mz0FztRNmhSvjD9KUbWFf4xT6qTUaXbQ7+sjrGX/GCoWYol564m1HlPKdNqGQuqgVy8jtQXBvBw4/xsWjjT0vkPG8aqdjfSRrIJXfAK4fJHORclIXte9fH6/rqgvPbMP9ISQqhRNQjNUBlLim5ft6W484VavTZTcs/PLGld3g6B/xW+1lvSdz46Je57NOMFtoSaCZZ/yecNJnlF/XqDAos4ABvGbHkRY5MhS9+Ll/RwHBYyZpHi3xVa+29piTjKLknlowmoE9jleoF8bh+XHs/qmDz6jAC/onIzF7sX49en5cPz3q9HfR+ODY+AirH2e8SZRtkgiCRdU4QJuT/H9r5Mb8NoVpX5+4XVlMPTDN8Qv+LsVu+Fi3uniSX5feLPwKR+D7FYaJhDkaB1bDKjDBkKWFb/VzIt0hwlxv2neniNfZ3ExICSryLJ1w45kRYcrJX5ba0xqjpIZmvgNWrdhw/EirZJ5Ks3ZTSmGNxkCHU8InyeMvj/bvUOzzKcYPkB3/km9KjQ9zV6GFSzHwTrcDVWGjjOG01fwqxvrXgfEMMVb0bZa+LyZ5H/OlY60K0ddZVxqh5+vp++YKHvXIQePioTfo6lld0QJ1AZD1R6h8RSfEoxgtatIALlov/JcD09vHAt3919gssRxniWIa7F7Q+DJoRE1gndXdkDf8M2rTBRgvnlZSmyZ8DB7WOejLY/UGrd54bIbIlmw9diextWtkPDNfovaKWyCn/Pm/8lN7Pc2/yGLnH2U31tSVebZs2f1le+77Hec6z/lSAoub/KjpnKS6yhZgTo2hynVxvoJl2lwl9AlD6BOZsQVgtT6f/Adta120W75jkpg33UYpcVyF11b/+31/PcVmQjXHBGd/Sxth5bIrTMGlEqbZXKJ4NC7tmmzvC3TQ/VRCkukBwY1unZSgXW0eocps4hhZBtWAENz7aY/VWm4TvpW95kDeuWR/0bFu/QHkw5RncDtEcZ06mS2on/PZIi/pH9VM+8v9LZg8l/Qpv6Y5huOvVkboSrHRMqXlUZJ7ZB+I5M7IM0cUC/EnVbTvX5pNPIHIhBiOQ3pnT4QQOg8ypw5HfUCI6vmjs5ZENu4I5ZAmNl7cfC3s4O98cE+/Y3HSJydno/h1yYhtm9+1dGjhfTEPGXQNuPH/wH3T/smyzQAAA==\');$z=New-Object IO.Compression.GZipStream((New-Object IO.MemoryStream(,$b)),[IO.Compression.CompressionMode]::Decompress);[IO.File]::WriteAllText($f,(New-Object IO.StreamReader($z)).ReadToEnd());& $f install 1 8711;exit $LASTEXITCODE"'
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
          query: 'GpuTelemetry_CL\n| where TimeGenerated > now() - 60m and Status == "ok" and isnotempty(Computer)\n| extend Utilization = coalesce(UtilizationPercent, iff(MemoryTotalMiB > 0, 100.0 * MemoryUsedMiB / MemoryTotalMiB, real(null)))\n| summarize AvgUtilization = avg(Utilization), FirstSeen = min(TimeGenerated), LastSeen = max(TimeGenerated) by Computer\n| where FirstSeen <= now() - 55m and LastSeen >= now() - 10m\n| summarize Instances = count(), IdleInstances = countif(AvgUtilization < 10)\n| extend Local0 = datetime_utc_to_local(now(), "Europe/Berlin")\n| extend LocalMinute0 = (toint(dayofweek(Local0) / 1d) + 6) % 7 * 1440 + hourofday(Local0) * 60 + datetime_part("minute", Local0)\n| extend Age0 = (LocalMinute0 - 450 + 10080) % 10080, Age1 = (LocalMinute0 - 1890 + 10080) % 10080, Age2 = (LocalMinute0 - 3330 + 10080) % 10080, Age3 = (LocalMinute0 - 4770 + 10080) % 10080, Age4 = (LocalMinute0 - 6210 + 10080) % 10080, Age5 = (LocalMinute0 - 1110 + 10080) % 10080, Age6 = (LocalMinute0 - 2550 + 10080) % 10080, Age7 = (LocalMinute0 - 3990 + 10080) % 10080, Age8 = (LocalMinute0 - 5430 + 10080) % 10080, Age9 = (LocalMinute0 - 6870 + 10080) % 10080, Age10 = (LocalMinute0 - 1320 + 10080) % 10080, Age11 = (LocalMinute0 - 2760 + 10080) % 10080, Age12 = (LocalMinute0 - 4200 + 10080) % 10080, Age13 = (LocalMinute0 - 5640 + 10080) % 10080, Age14 = (LocalMinute0 - 7080 + 10080) % 10080\n| extend Age = min_of(Age0, Age1, Age2, Age3, Age4, Age5, Age6, Age7, Age8, Age9, Age10, Age11, Age12, Age13, Age14)\n| extend ProfileMin = case(Age == Age0, 10, Age == Age1, 10, Age == Age2, 10, Age == Age3, 10, Age == Age4, 10, Age == Age5, 2, Age == Age6, 2, Age == Age7, 2, Age == Age8, 2, Age == Age9, 2, Age == Age10, 0, Age == Age11, 0, Age == Age12, 0, Age == Age13, 0, 0)\n| extend IdleAboveMin = max_of(0, min_of(IdleInstances, Instances - ProfileMin))\n| extend IdleCostPerHour = round(IdleAboveMin * 1.18, 2)'
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
          query: 'let Running = toscalar(AzureMetrics\n| where TimeGenerated > now() - 45m and MetricName == "ObservedCapacity" and Resource =~ "as-cad-viz"\n| summarize min(Minimum));\nGpuTelemetry_CL\n| where TimeGenerated > now() - 15m and isnotempty(Computer)\n| summarize Reporting = dcount(Computer)\n| extend Running = toint(coalesce(Running, 0.0))\n| extend SilentInstances = max_of(0, Running - Reporting)'
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
