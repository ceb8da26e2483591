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
                commandToExecute: 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "$d=Join-Path $env:ProgramData \'gpuform\';$null=New-Item -ItemType Directory -Force -Path $d;$f=Join-Path $d \'gpuform-gpu.ps1\';$b=[Convert]::FromBase64String(\'H4sIAAAAAAAC/8Vba3PbOLL9rl+BcukWyRmRkZzJTOLU1MTxI9GOX9eSk92VvQ5DQjYTitSQlBNvkv9+TzcAEtTDmbu7VZtU2RLZbDSAfpw+oOdhEc7czuSMfstKFu5ZXiZVkmfiV9H3riZlVSTZzVV3L5/NwizGVcfpbZAfQD7JqqvubnFDj2+S2zZyZ3lR4fvTXwaDjtcZycofYbioOs5jKfw3sijpge1O96Ao8mI3oufPCjmVhcwiSbaMqnzudLr/u5DFPX2vkpksq3A27yVZLD/3Fosk7mUwobeokjT5Z0gqgpv5ojeTs7y4DxaljM3nKq/CtFfJ2VwWYbUoJAvO80+yCOIi/NSTURRIMqUMFlmUF4WMKhkHd3kKvanUCuIiuZPF9Z0yH9Yd5sUspIk6UXnXy/JbGcaywIdFllQlBM6K/AbrtB9WIaSSqXC7MrvbsS574otYvia+CZmWEnecvZ1L64YjvnW653lOQ/4lTzL/LKxuRWsUBzObwiwMfpTf7CeFPe6rs4vD0/Pja/y+Pjp9db0/PK/HX3OvscMajId30vymZGtGVVjJB4YZjXfHBxsHqu8+MFRJI/BYv0s53w/vS/I0HjklV3nc73e6w+wOHyev0vx9WHvD3iKlzR5m0/xqZwciYZGEWaUvd7oXVbT6EFZRjuFso+o+leWVsxt/WJTVOL/IaPNLuMFuWS5msv7usCmzOVRt3eOff3zsx7Ezdl6/3pnNdsrS+buzRYNNn0LkRH7yT99/gH+J0X0JlwzG8nMVXIwPnx7A82LEpNudhlgLr4PYTBezjOb7wu04ZNUrmZELy9jpwTny2XyBEKTPb2ZDvnZWJHmRVPf0+eDznP341XxR0nf8HlLw6M8XCCGEPH08QSDR1Ysmls5kEcmsoqvHHEUXCKjj5GVzYUxBoa+Mm9jaI51nFFv7CK23bEgUXTRhRVf+msQc+qX+sofEwJ/3OcZ0huBJLuKw/tpxyN/UbF7LMK1u75U9ZRneSAe5Zor45Wz0CknnJP8kvnRW/PLk9C28sVNImJuJidlx+AiyWikPPodRtfJET6htxm94En7Ce7wOvJISn60D1zGu0d7Ngt04HifRx9IVPgzJAv4i/kdM2M3mYYaH+BqWfCSjPIs9UlzPhFzmPP/kdl+GpcTAb8J0IUuaQbfABDF6XiDtyPjqxRc8lhcyjG4xUiQSjK99iMMP4pNudIVHutkiTYUtPQ+RsvHAi+VxaKBG7CMrJeHgd3nPVtD6+hlClfQHe3lWhUlWQpQeFdUtGbml09KOIA2lIPFQRGybyKcCPjiWqURFKe6v9462KNzZ2o9sLY1Hn7Es3+qVxX17mTAwPAeR6p8sZu9RmOoSRxHGy0VVrh/02eJJnC/ep7Rh4+Ke991lwWBcJDPX6y3nBaVUZ4WdncM0DyvjCxOUrqtu7Fle1Y0tS2mx15s6zCp5s9ZWcqvlKQm+rRyaN9CXf0A7LbM9lKhHnqQ5lE6OkU55ojAAjoqHWw6GOeQfpT/O87Qx5OAzfEB/m1xx6T9KSmXbvEzWprL9JLzJ8rJKojJAUYoQloiZoqIMzE8Fh6imlGxoUzGCugjVSKhZRYnOhf/pocRXgQJ7AL8zw6AgbjniR9G9xg/6+M0T/gcUDOEIx1PKkKZGtzJNoT1CcqSBOJ2qu+cyTigLwawsDov4dFEhhZJQVSw2yHCiaovsIRwqeZK/BRjhEFT34Ly8PBSTm5cEO8Gr4pIqbITAniC2atd58UVQOiTctf3Lc3HK9jnOcwFDqMjQwuGZjGKoJEUIKrd7HRx8juScfVXnQ4/CCIGUqxnOg/asMdEwHucHWbxb3meRiwWUPIIlyXNfFWxCfh68DZOK9ulzUrmoxf0+hwEvBd3+PUlT1xP1LBvntOf506Z5xkmskkVWoqJQ8nncF6Wa2IoeDEdm0DejjyYP+0vUfKOYZqkvsZo6Dg6xm/7JXRIn4WiWrK0cb4b7w93r0fHQjrn1EpTCsEuYAFxF13DXQjf0lHIShXPU58fblxlb4JezJJCfpeP1Vh7TgI+CqRSOGhJrUMzzgpPV5ckbGLCiiMrjUnVoDDSZfAyYrYbyjxKAizBV40b2jCPlWNGMMipVWtNFOEtjCt9C+GIEg7MqvacakWQIGF5gaGnpnsUBD7k5f9KIh4lMY7erMkOdqa66lF3MXHSSzKTQcsInI/WX4GxkPhQ50EuVyHLCz1/Z8MAo/u5DARfMxi8dZ9nm4SwuKUFE2ALZxvA1jnYSCAUfSm4wyiJih7UcbHi8P7o+HB4dWHs51YUb4j2htHv1GkzVpDdu7NSKV225q7YUtSmrlqWFfx5+QmrWtemwyGf+X2BtO8TpP48Ok9aUJ50oC5SvJlWeyCp4K9+fyz8AOypkSZVlXee2quY7jx4Nfn4WbD/5KdC/HwEshHDd8BHQBtJVJB9FChD/Fs4TX3dpv273twd+f9vvD6hCYMTgNXdpJeEyF9BRKSEYSTncCGF3P98boKQuEVxTqXS7Tz1HIUvK9HwPC4aMMs8zwAjPTK9CsaaStlooh6fIsJjd7JxtcVmXrUTddT3Pa5KvS7VimmRhmnJu5Wf20pyGxJpOGt2UGLB+b9EIyN00JdDgKreAe5BVDF+nTz3jqq6ydc2urpYnE41Lvm3h9AZEII0qnIplsFCGoBtwWFVIukXA+ZvATF9HaBFQ+vZnPLSzd7G/K7TyncvyB3fS958FVz96ju1bxySMaBxciQdiUDUYqvmwDE3gP7RsbO5M1U+VtL3VMrB/PnxzcH598ObgZKyCcfWxzSH0sCZswttboPkG8wDtmIVAp0Sgp2O6ZWSIRBEmalceSuCtKWoPNU9v6IEemEStjfOBV6PmtU1SKzEsoVc2wUIMxiQ1djIb6uAW/l4aliWDR8Cux9vXp9xxYvuU43vBUVhWL1FLL+Y0lcDq2el7C4S0h0G/5lE6OEZRQil0/YHHpupVmiYpZk67+kWAVNH4VRds4BXkClQ9WZgb2V0ax7OPdOtI3smU/WHQAz32XDDyI3Noz9gI2HmUR42Na/wI8z244z04ZFNeh+VtFaJ7Eca2dpkFd7YOPNfefm0QovIlE+DLfq9qPHXm+kJTcWaMHox8XWtmtqdO/oEovfrBvYx1oGpdP8LfmCVsBawN53iyNGg9AjLEIgOC29PWuNQnKHVfxQhso5mljz1H/fDqxqDneG2Ux1kRzpxJK/7JqXvEOH1SjbVO3UgfzZwZfRoRlUdpLnTjq9WqUdoUBIjmSNAQ/VFsvSveZVtrU/TufC4Bq02O1ma0UvRqo4aWPsVcXbWKhuVRdms8RgxEt9S0VBdNbT7imbp2fHodqkxDWCT45/h+LsU+9z6gd+BseUFxpwJesYk9C6l8JYiNzpTqI9ViPTSBHPRAmofSFxmtCSXmmHuO3Ufoa7y01sPOubxZpGHBBOB7EBMchp0WF8ahRNPqGEZM8L82tNjPqPOCMa/RjlGowqGJNRP1P50NWrbeEa/mdQytZgRrEzs2ySZUW6suUPCUdZbcAPY+J7HPQgB7+KxXy65RolECfTNqvNt9isZZmyptyZV2y/f/ICrdBw/zq2LVt3oCV6dMYf+qqewtu7TojPdQL7oE97lTmyJSATdNO9MT3Iz0xNnu+LW3Q+RPBfCrmxZFqQtGcHDq+DdHdRbgdsq1FIP2fUQDAFxRhPfEFKzCCF6LCJDE9CcNOuElscI6RSagyHYN6CjnaVJR0P6GqGVwDNRLCZBFgxHddjmvrMmxyK2qFFJqVfhb5S5uQwYD8u9Itz/k0tgP5dGGnBUtf1xhipDxkS+9juZvRUsc97avOprPXbn1+Kqzyu+2BzE003TyE8Zo8b5rTGqkn9TShhR+SPpnSNuEsXhQ9y+Qbujk9YvTSD+FdJtufnApn0G85qJb64VoDFQd6hh+WqwI8OVOi7O2FnzQv+rYjtc8S57ZUVS2aO+Tk390OpraXtpBpphM4W4/RCh3cpcn8RVHDrc2ruaNhUqb5Gme1zRmJlrglQDdILjUk9pX6xgil1fl36VnKOypoKGc/ahRusF+3lLkrAWyCIrurLwxp0Ws3Yx5U/GYQl2d9K+aQ6GtJs8ICYYHu9o1U2CWS6GP8iY4ktkNQV8oe9JX6tR4fHe0eK8qvtvvqfvfuEzSPmiT7HWhx60U509DZGFC4PX5XJZTRnVEk7JeLK17K7QNTm+2XpUufLE2vaYsG8/c5JAtP2x8Q023U3cKambW/oL6agEHC+XA8kSx6/UZw8QcuxAZTyeM/iwpUZZuHH3bnMVcWXQr3zAnM3TD3sTyllaraxvl0TlAbZRAh1RusbtagE3YTJg+33TZIKaFLZzj0FHc8XFMp02MdYgxVrQKPJWH7XRv9ZKb4Nq4CqJ1xmHNlx3MUsNzh39ot5Lt0xlRGeBPaOW5sB7UH5+L2ht5bESBtfjQWjGiW4sllAqeYwAx57uMQEVA0NWGPgBhayh6nN9JjRdbzSAZ5e+j7wQ5wUDV/Z6BKJ4KXn7XyBr99PSy1dYgi1b5dKoALjIeHQ27fn1K7D3gDNZO58B6zJ4xTLhN0njNBLWr6fZLhcAPaiIPM5wKPsQh7zGGCuhsjaqzlYp+0kCBpEz79I/L+MvTb11H0yF8i2JWTZm87hzldv1u0DCHyDIMAjSIr9O+9jOLN+k3bMlgmSxRfm7xBTXdu4YT+FObvp487HT5NQqFZAOOEh9AsaElOM7UnbV9vc7HG3iMus1TGtayFBRcU7j7LXeXhhXAkS1MI1cCrFGHs6XaCX79QGPvwAQyMxqUSvS+sUJrrV+4oA6ts2tuTdecjLhP+o/pOD67NYL2zozQMuqtcbt7aSKzyuJ01AXQhpHEKjWk5RMmLfVdUrF8q2TOkRxVC2ERDA9JbCcxlWsx+QqbqTT16vaLz1XN6w3U9Y72hkOv8+mWOiOXF6wGG4pRJT3MfFLaNxRcQxqxIIMW9QnXHKYY3uPRj6qFuNW+qhYKzWMecxRS8qCpvbwnqsdFVkYTniYRZy4lPNKpu3vL3MRDuVGtTMmvP6kAI+BCBm0r+OGc/m4DhpEs7hIE5EUW3gFNEInD6IFeHbIa1rUr1li99Xo8Pns0CAZUQmlET2gziGrQ0elTP78jwmZ2jz4sSSi0xOeHtDwaPXlaJFON1o6IiGSmi0xkeMZVAs7UnFPinoBf8yejZFmKBlBS9lC11GG6KG9dm46yyO7abzXd3aafdb9LSys1KUJdoczoNTTtWPRVFqtEVjJX2d9mCoZnqCaFOqk9yvP5+zD62BObJIZndz8bKc+Kw3RtrNDTozz6KKsyGEfzI20YGYKVscyGgkAdE3u2/SCcuuk6RrUWWYLwKy9g6JNjJS+wfOjsgz7+D3as8QlUr8RnSSscNxjPaqIZLdU21IRgGpwh01CV46WxMhekg92ITqyxDGp3aabNEIzIzPQU9lI3aVK8Mv4oRa0X/jGOmJNSJ+dBv6/Pn5b9Y6hIhiXarCfWekwp02kbaKlTWr2MhPqDeTlw/j8UGmnofYdJ41U7G+nzVEXj8/Hd8kU61CQjeV338vn9Oiiw9IwN0dQMNQj7Rq81tKe78XhavfNQckvOb1pc3g2C/iW/TVnSdz74JeJ4NuO0uIVKCop8yocFJ3lG7XeBsozqBPDEr2kQH5EjS92Ll/dzsPyMtKR4t8VWvtvaYkIxi5J5aMJqBOo4XqAdG4flx7P6pg+6ogCp55yMxe7F+PXp+XD8t8vR30bjg2OgKax9nvEm6UQMF1Thcr7IFFn/OrkBKV1RweAXLVcGQ7t7Q/SBv1uxGy7mnS6e5PdUNwuf8hnGbqXBBQGV1pnDgBroczmXFb9Ny4t0hwlxO2neFCNfZ3ExIPyruLB1w45kRScjJX5ba0xqjpIZevQNWrdhw/EirZJ5Ks3BSymGNxkCHU8InyeMtj7bNdULc0rT/JN6z2d6mr0MK1iOU3G4G6oMnUUMp6/gVzfWvQ5YXYq3om218Hkzyf+cSx1pl466ymjWDj9fT98xUfauQw4eFQm/BFPL7ogSWA+Gqj1CXyk+JRjB6kaRAHLRftW2Hp7edBXu7j9BVInjPEsQ12L3hiCXQyNq3O+u7IC+4Zv3kCjAfPOmk9gy4WH2sM5HWx6pNW7zwmU3RLJg67E9jatbIeGb/Ra1U9jsPOfNf8lN7HcU/y6LnH2UXzpSVebZs2f1le+77Hec67/lSApkb/KjpnKS6yhZgTo2hynVxvoJl2lwl9AlD6BOZkQFgrP6D/iO2la7aLd8RyWw7zqM0mK5i66t//Z6/vuKTIRrCogObpa2Q0vk1hECSqVNIrnEX+hd27RZ3pbpvPoohSXSA4MaXTupwDpavQPsQQSkAg04hGxjCwBpLuD0dxINn0nf6g5gQC8t8h9IeBMfTD7AilNnsvXK90yO+FPKG7W8s6TUBsh/Qov6841vOK1mawhPOSZGvqw0Vmpv9IuU3DF11jZCtS7+QFRDLKchvYT3pTNBt1HmzP6oNw5ZKfd+zoIIxB2xBLzMfouDv54d7I0P9unvCUbi7PR8DF82SbB986uOGC2kp+Qpg7YZM/4fUZmS/jczAAA=\');$z=New-Object IO.Compression.GZipStream((New-Object IO.MemoryStream(,$b)),[IO.Compression.CompressionMode]::Decompress);[IO.File]::WriteAllText($f,(New-Object IO.StreamReader($z)).ReadToEnd());& $f install 1 8711;exit $LASTEXITCODE"'
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
          description: 'nvidia-smi index; empty on a health row'
        }
        {
          name: 'GpuUuid'
          type: 'string'
          description: 'GPU UUID'
        }
        {
          name: 'GpuName'
          type: 'string'
          description: 'GPU model as nvidia-smi names it'
        }
        {
          name: 'UtilizationPercent'
          type: 'real'
          description: 'utilization.gpu (percent)'
        }
        {
          name: 'MemoryUsedMiB'
          type: 'real'
          description: 'memory.used (MiB)'
        }
        {
          name: 'MemoryTotalMiB'
          type: 'real'
          description: 'memory.total (MiB)'
        }
        {
          name: 'TemperatureC'
          type: 'real'
          description: 'temperature.gpu (°C)'
        }
        {
          name: 'PowerDrawW'
          type: 'real'
          description: 'power.draw (W); empty where the driver does not report it (vGPU, GRID)'
        }
        {
          name: 'EccUncorrected'
          type: 'long'
          description: 'ecc.errors.uncorrected.volatile.total since the driver loaded; empty without ECC'
        }
        {
          name: 'XidErrors'
          type: 'long'
          description: 'Xid events since the previous sample (Linux: NVRM lines of the kernel log; Windows: nvlddmkm errors in the System event log)'
        }
        {
          name: 'XidCodes'
          type: 'string'
          description: 'Distinct Xid codes, e.g. 79,48'
        }
        {
          name: 'DriverVersion'
          type: 'string'
          description: 'NVIDIA driver version'
        }
        {
          name: 'CudaVersion'
          type: 'string'
          description: 'CUDA version the driver supports'
        }
        {
          name: 'Status'
          type: 'string'
          description: 'ok, gpu-missing, nvidia-smi-failed or no-gpu'
        }
        {
          name: 'Healthy'
          type: 'boolean'
          description: 'false when the VM\'s GPUs are missing or the driver fails'
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
  scope: vmss
  properties: {
    description: 'Every VM of the scale set sends GPU telemetry through dcr-cad-viz-gpu.'
    dataCollectionRuleId: gpuDcr.id
  }
}

// Instances above the active autoscale profile's minimum whose GPUs averaged under 10% for 60 minutes at $1.180/h each plus the Windows licence (Linux pay-as-you-go list price in westeurope: no Windows price is embedded): the pool is not scaling in. Check the scale-in rule (queue threshold, cooldown) and the schedule's min.
resource gpuAlertIdle 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-cad-viz-gpu-idle'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'cad-viz: idle GPUs above the minimum'
    description: 'Instances above the active autoscale profile\'s minimum whose GPUs averaged under 10% for 60 minutes at $1.180/h each plus the Windows licence (Linux pay-as-you-go list price in westeurope: no Windows price is embedded): the pool is not scaling in. Check the scale-in rule (queue threshold, cooldown) and the schedule\'s min.'
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
          query: 'GpuTelemetry_CL\n| where Status == "ok"\n| summarize AvgUtilization = avg(UtilizationPercent) by Computer\n| summarize Instances = count(), IdleInstances = countif(AvgUtilization < 10)\n| extend MinuteOfWeek = (toint(dayofweek(now()) / 1d) + 6) % 7 * 1440 + hourofday(now()) * 60 + datetime_part("minute", now())\n| extend ProfileMin = case(MinuteOfWeek < 390, 0, MinuteOfWeek < 1050, 10, MinuteOfWeek < 1260, 2, MinuteOfWeek < 1830, 0, MinuteOfWeek < 2490, 10, MinuteOfWeek < 2700, 2, MinuteOfWeek < 3270, 0, MinuteOfWeek < 3930, 10, MinuteOfWeek < 4140, 2, MinuteOfWeek < 4710, 0, MinuteOfWeek < 5370, 10, MinuteOfWeek < 5580, 2, MinuteOfWeek < 6150, 0, MinuteOfWeek < 6810, 10, MinuteOfWeek < 7020, 2, 0)\n| extend IdleAboveMin = min_of(IdleInstances, Instances - ProfileMin)\n| where IdleAboveMin > 0\n| extend IdleCostPerHour = round(IdleAboveMin * 1.18, 2)\n| extend Summary = strcat(IdleAboveMin, " idle instance(s) above the profile minimum of ", ProfileMin, " (", Instances, " reporting), $", IdleCostPerHour, "/h + Windows licence")'
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          dimensions: [
            {
              name: 'Summary'
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
          query: 'GpuTelemetry_CL\n| where Status == "ok" and MemoryTotalMiB > 0\n| extend MemoryPercent = 100.0 * MemoryUsedMiB / MemoryTotalMiB\n| summarize PeakMemoryPercent = max(MemoryPercent), PeakMemoryMiB = max(MemoryUsedMiB) by Computer, GpuIndex\n| where PeakMemoryPercent > 90\n| extend Summary = strcat(Computer, " GPU ", GpuIndex, ": ", round(PeakMemoryPercent, 1), "% of VRAM (", round(PeakMemoryMiB / 1024.0, 1), " GiB)")'
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
            {
              name: 'Summary'
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
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// A VM reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. Automatic repairs replaces a VM whose health probe stays unhealthy.
resource gpuAlertFaults 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-cad-viz-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'cad-viz: GPU faults'
    description: 'A VM reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. Automatic repairs replaces a VM whose health probe stays unhealthy.'
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
          query: 'GpuTelemetry_CL\n| where Status != "ok" or XidErrors > 0 or EccUncorrected > 0\n| summarize Samples = count(), Xid = sum(XidErrors), Codes = make_set(XidCodes), Ecc = max(EccUncorrected), Statuses = make_set(Status), LastMessage = take_any(Message) by Computer\n| extend Summary = strcat(Computer, ": ", strcat_array(Statuses, "/"), ", Xid ", Xid, " ", strcat_array(Codes, " "), ", ECC ", Ecc, " ", LastMessage)'
          timeAggregation: 'Count'
          operator: 'GreaterThan'
          threshold: 0
          dimensions: [
            {
              name: 'Computer'
              operator: 'Include'
              values: [
                '*'
              ]
            }
            {
              name: 'Summary'
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
    serializedData: '{"version":"Notebook/1.0","items":[{"type":1,"content":{"json":"## GPU pool `cad-viz`\\nSampled once a minute on every VM by the gpuform collector (`nvidia-smi`) into `GpuTelemetry_CL`. Idle: under 10% utilisation; VRAM alert above 90%."}},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU utilisation per VM (%)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU utilisation per VM (%)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by Computer, bin(TimeGenerated, 5m)","size":0,"title":"GPU memory used per VM (GiB, peak GPU)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU memory used per VM (GiB, peak GPU)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| summarize Instances = dcount(Computer) by Priority, bin(TimeGenerated, 5m)","size":0,"title":"Instances by priority","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"areachart"},"customWidth":"50","name":"Instances by priority"},{"type":3,"content":{"version":"KqlItem/1.0","query":"AzureMetrics\\n| where MetricName in (\\"ActiveMessages\\", \\"QueueMessageCount\\", \\"ObservedCapacity\\")\\n| summarize Value = avg(Average) by MetricName, bin(TimeGenerated, 5m)","size":0,"title":"Queue length and autoscale capacity","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"Queue length and autoscale capacity"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now()) and Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\\n| where Utilization < 10\\n| summarize IdleVmHours = count()\\n| extend IdleCostUSD = round(IdleVmHours * 1.18, 2)","size":0,"title":"Idle GPU-hours and their cost this month (Linux rate; the Windows licence is extra)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"tiles"},"customWidth":"50","name":"Idle GPU-hours and their cost this month (Linux rate; the Windows licence is extra)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status != \\"ok\\" or XidErrors > 0 or EccUncorrected > 0\\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\\n| order by TimeGenerated desc","size":0,"title":"GPU faults and health rows","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"table"},"customWidth":"50","name":"GPU faults and health rows"},{"type":3,"content":{"version":"KqlItem/1.0","query":"alertsmanagementresources\\n| where type =~ \\"microsoft.alertsmanagement/alerts\\"\\n| where tostring(properties.essentials.alertRule) contains \\"alert-cad-viz-\\"\\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\\n| order by FiredAt desc","size":0,"title":"Alerts fired","queryType":1,"resourceType":"microsoft.resourcegraph/resources","crossComponentResources":["value::all"],"visualization":"table"},"name":"Alerts fired"}],"isLocked":false,"fallbackResourceIds":[],"$schema":"https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"}'
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
