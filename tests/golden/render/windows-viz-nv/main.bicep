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

@description('Name of the GPU telemetry remediation this deployment starts. Azure refuses to change or replace a remediation while it is active, so each deployment names its own (gpuform deploy passes one).')
param gpuDcrRemediationName string = 'cad-viz-gpu-dcr-${utcNow('yyyyMMddHHmmssfff')}'

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
                commandToExecute: 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "$d=Join-Path $env:ProgramData \'gpuform\';$null=New-Item -ItemType Directory -Force -Path $d;$null=icacls $d /setowner \'*S-1-5-32-544\' /T /C;$null=icacls $d /inheritance:r /grant:r \'*S-1-5-18:(OI)(CI)F\' \'*S-1-5-32-544:(OI)(CI)F\' \'*S-1-5-32-545:(OI)(CI)RX\' /T /C;$f=Join-Path $d \'gpuform-gpu.ps1\';$b=[Convert]::FromBase64String(\'H4sIAAAAAAAC/8Vb+3PTSLb+3X9FV8q3JA2WsMM8INTUEPIAz+R1Ywd2N/EGIbUTgSx5JDmQBf73+53T3VLLjzD37q1aqEpsqXX6dJ/Xd75W5mERztzO5Rn9lpUs3LO8TKokz8Svou9NLsuqSLKbSXcvn83CLMZVx+ltGD/A+CSrJt3d4oYe3zRu24w7y4sK35/+Mhh0vM5IVv4I00XVcR5L4b+RRUkPbHe6B0WRF7sRPX9WyKksZBZJ0mVU5XOn0/3vhSzu6XuVzGRZhbN5L8li+bm3WCRxL4MKvUWVpMm/QhIR3MwXvZmc5cV9sChlbD5XeRWmvUrO5rIIq0UheeA8/ySLIC7CTz0ZRYEkVcpgkUV5UcioknFwl6eQm0otIC6SO1lc3yn1od1hXsxCWqgTlXe9LL+VYSwLfFhkSVViwFmR32Cf9sMqxKhkKtyuzO52rMue+CKWr4lvQqalxB1nb+fKuuGIb53ueZ7TlL/nSeafhdWtaM3iYGVTqIXJj/Kb/aSw5311dnF4en58jd/XR6evrveH5/X8a+41eliT8fROmt+UrM2oCiv5wDSj8e74YONE9d0HpippBp5rOIvLiyKl/b6tqvnO48eDn58F2z/9GOjfj+GRYYxteJxkeAyu9DjKZ/NFJX8L54mvDffrdn974Pe3/f4Au/SHlPP98L4k9+XlpOR/T/p9zJfd4ePlqzR/H9YutrdIyYOG2TSf7OxgSFgkYVbpy53uRRWtPgTTyDE8eFTdp7KcOLvxh0VZjfOLjDyqhG/tluViJuvvDqsym0PU1j3++cfHfhw7Y+f1653ZbKcsnX84WzTZ9CmGnMhP/un7D3BaMbov4efBWH6ugovx4dMDuHOMQHe70xAb7HUQ8OliltF6X7gdh7R6JTOKCxk7PXic2rCCPr+ZDfnaWZHkRVLd0+eDz3MOjlfzRUnf8XtIEak/XyAukUfo4wmik65eNAF6JotIZhVdPebQvECUHicvmwtjijR9ZdwE7B7JPKOA3Ue8vmVFouiiiVW68rck5nxS6i97yDb8eZ8DV6cdXuQiDuuvHed8kWXYo9/z9zycfFot7rUM0+r2XqlXluGNdJDPujTwMGFHWXH6309fjq4Ph0cHKw5f33nA2T+QCvD1KdIQJ9VXyJ0n+SfxpbMy08npW8zRKSQ2KBOXxsfglUjOpTz4HEbVyhM9oRwLv+G7+Al/9ToILsrftgxcx7xGejcLduN4nEQfS9cfiB+gShbwV/Ff4pJdex5meIyvwcwjGeVZ7JHo1lqsrYbuFZL7FzU34q2C05IWw9OAdhfSzpFQd9OUvNmtd90LxkUycz3eEa43mLa450W7LKS3HH8ni9l76KSib2fnJM+k2YBLlJ1JN/PIXPViYYFvIgqr6BZXvzWbsEhTe0EUd+f5J7f7MixJ4JswXciSjNItYDMsJS9QEGQ8efEFj+WFDCHR7UYigTQdiOwnGH7ZjSZ4hCcR9uh5iGKKB14sz0MTNcM+slAaHPwh71kL2iA/g1+R/GAvz6oQiRFDebXVLSm5pQvGjiAJpaDhoYhYN5FPBQJ5LFOJzFrcX+8dbVEiZm0/srY0H33GtjT7hPv2NmFihB/Sna/s4NbggwzL20X4ox/0lUnjfPGezd9YlfOZMvv3jHuY5mHVtm7sWYHSjTubLdqoOswqebNWV/LW5SUJvq1ilA3oyz8hveVUyq4mXNMcQi+PEfu8UCiA2MPDrYjBGvKP0h/nedoocvAZPqC/XU4YlB0lpdJtXiZr68F+Et5keVklURkALkRIZkgDRUVljJ/iiKOMTUbFDOoiRKMqZRVVCxf+p6cSXwWgzwH8zkwDqLLliEeie40f9PGbJ/wPyG7CEY6nhCHXj25lmkJ6hApDE3FNUnfPZZxQKodaWRwW8emiQh2iQVWx2DCGs317yB7CoZIn+VvARA5BdU8nGqqnl5u3BJbgXXFJlNekAGO0F18E1RRCxNu/PBenrJ/jPBdQhCo1bRyeySiGShKEoHK718HB50jO2Vd1FfEojBBIuVrhPGivOqC8N84Psni3vM8ipLqu5Bmskbz21YFNyM+Dt2FSkZ0+J5ULQNPvcxjwVtDtP5I0dT2xJtHZ6/xx0zrjJFbJIitRlin5POmLUi1sRQ6mIzXom5FHi4f+JYCTEUyr1JdYTB0Hh7Cmf3KXxEk4miVri+Gb4f5w93p0PLRjbv0ISmGwEhYAV9FAyLVKMT2lnEQVZfX5yfZVxhr45SwJ5GfpeL2VxzQUp2AqhaOmxB4U87zgZHV18gYKrAgCqFiuDo2CJpOP0QCpqfyjBAgtTNW8kb3iSDlWNKOMSgXX9HfO0pzCt3ovMYLCWZXeU41IMgQMbzCktGTP4oCn3Jw/acbDRKax21WZoc5Uky5lF7MWnSQzKfQ44ZOS+ktwNjIfihwQsEpkecnPT2zEYwR/96GAC2bjl46zrDO1FpQgIphAtrurusNxEgwKPpTc+pVFxA5rOdjweF/hO8uWU124MbwnlHSv3oOpWvRGw06teNWau8qkqE1ZtTxa+OfhJ6RmXZsOi3zm/w5t2yFO/3l2WoGP9GnaqoBTX/k2qW5d58ULx1tTvHQaLVDcmkR6IqvgrXx/Lv8EKCEwpnKwawR7/EDwmpvjknCkCzStGjVC1pSgHT0Ipvt8b1CQukTgUuXJ7T51ZYUsKY3zPewG0sU8z4ARPKOdhpHuahUEsAQPIcPZOevisixbiLrrep7XZFaXCsE0ycI05cTJz+ylOU2JLblsZGvQ+hatkqxRK9sctle4lDs2z/ihQqvrTLZae0yoLTmu1ck0CAE5UoFQbIMFIQTdgDeqKtEtAk7OhFT6OvyKgHKzP+Opnb2L/V2hhe9clT+4l33/WTB55Dm2axzTYITaYCIeCDDVgqn2zFI0QY/OmJ7UnaniqDKyt5rj98+Hbw7Orw/eHJyM6x5r6bHN8fGwJBjh7S2gegNoAGXMRqCXJETTMX0bwj9RPJWyykPZubVE7aHm6Q092wOLqKVxsHs1JF7b1LWifgmasgoWHDAqqbmT2VATKMLfS8OyZGQITPVk+/qUe3KYTzm+FxyFZfUShfJiTksJLFaDvrcQRnsa9JcepYNjVBzUOTSWHquqd2mapFg5WfWLAJelwamuxgAjyBUoabIwN7K7NI5nH+nWkbyTKfvDoAdW8rng3EbqkM1YCeh5lEeNjmv8COs9uGMbHLIqr8PytgrRmgijW7uGgrJch4xrb7828E/5kgnwZb9XBZy4C32hKSczhgZmfF1IZranXv4TUTr5wb2KdaBqWY/gb0zOtgLWxmq8WJq0ngEZYpEBnu1pbVxqApS4r2IEktes0ofNkf69GvX3HK8N4TgrwpkzacU/OXWPuI9PqmvWqRvpo1kzQ0szROVRWgvd+Gr1YZQ2BaGdORI0hj4SW++Kd9nW2hS9O5/LrGEWtBqtFL3ahaFfT7FWRTl0DQ+m9NZgixiTbqmJuy461nzEK3Xt+PQ6VJmG0Ejwz/H9XIp9bmxAgMHZ8oLiTgW8InF7Fgz5SvgZbSfVR+I79dRUbNHgaKZOX2QoJtQwx9xz7CZBX+OttR52zuXNIg0L5l3fg3XgMOy02EIOJVpWx3CGgv+1kcF+Rm0VlHmNXotCFQ5NvKKo/+ls0NL1jphHr2OIRzOwVrFj05BC9azqQsdmmGrh1kVmu8o6j27Aep+T2OdBwHr4rPfTrmKiEQJ5M+q7222KhlmbanHJtXjL9/+kMw4fNMyv6rhjqydwdcpnC7/qM4Ytu/jonPhQK7qE9rlRmyKWgTZNN9MT3Iv0xNnu+LW3Q9xPBeyrexZ11iGYR4fbx785qrEAtVOuZRh0dCBeAPGKIrwnomAVaPBeRAAtpj1p8AtviRX4KXIFxb5rYEk5T5OKwvo3xDVjY4BeSpE8NBjRbZczz5osjOyriiUlXwW/VXbjLmQwoAiIdPdDTg97KJ83BLdoeewKUYSagIzqdTQHLlrDcW970tGc+MqtJ5POKkfensSwTNPLHzFHiztfo1Iz+qd6tCHWHxr9M0bbpLt4UPYvGN1Q8us3pxn9FKPblP2DW/kMw2s+v7VfiMZAVaqO4fjFygC+3Gnx/taGD/qTju14zbPkmR3F/4u2nZz8o9PR5wFLFmSGyZT29kOEgy/v8iSecORw8+Nq2lioxEqe5nlNX2aiBV7ZVw0aP6l9tY4hcnkFEFx6hsKeSh4K3iON4w069JYiZy3URVB0Z+WNOdFg6WbOm4rnFOrqZX/SHGBsNXlGSBA8sGrXLIFJLoVPypvgSGY3BI4h7Ke+Eqfm47ujxXuFCdx+T93/xoWU7KBVsveFHrdSnD8NkYUJo9cHp1lOGdURTcp6sbTvrdA2SL4xvSpu+GIZvWYsG8/c5JAtP2x8Qy23U/cSamWWfcF8taCFhYOgeaLI9fqI4dKcVREXT0e//iwpUZZuHH3bHGBNLLaVb5jjLLphG7G8pd3q2kp5dAxQKyXQQ5Vb7K4WpBM2EaYPnl1WiFlhCwk5dJx5fBzTiR2jISKMFasCT+VpO91bveUmuDbugmgdcVjrZQezxPDa4R/arWT7cEZUpjUgPPNcWA/qj89F7Y08N6LA2nxIrRjzrcUSSgSvMcAw57ucQUVQ0dWKPgBya7DahZdVf2F658FWlYSQZ62qdy7naRhJrRkP7KmIsXDJ6mPH+V3rGcpy31t7Dap62hrNInFqkE+nClkjkdKpvevXB/jeAz5mOVAOkMmcHKOP2ySNFRJv7YT2YN33qcj6Qe3gw7ypQiVxyK6DqQI6saOib2W4HzX+oFGmb/vnVfzl6beuo3kYvkWpQC2ZnPkcVfxO+muUpWkOYQrGFrp7qKuJdl+LsOk3NM1gmaVR4WMRFTWJvIaMcL/rbd4mSrLT5ddmFEAOOPh84M+GD+HwVXfWEgo6zW8gUOr+UklYS49QzE4RRbfc1ho6QvgCqpErAS2pM+xSWYLfDNGQPjD5gakUylDabizQ2usXLjhL6z0Cb/3Bshl2kd2agbZlRuhVtWnc7l6ayKyyyCR1AXxlJLFLDVv6E7Ol+i6JWL5VMtlJjqoHYRMMAUo0K1Gka6H+Co2qJPXqvo9Pa82bJ9Ruj/aGQ6/z6ZYaLpc3rMYwisolOUy5UjUx3F/DVvFAxkLqE645zG28x6MfVWdyq31VbRS61jzmKKTkQUt7eU8ck4tkj+4/TSIG22rwSFeE7i2TIg+lXLUzJb/u5pz+4XCtiq2ed+3am/m3Xo/HZ48HwYBq7C2qiCe0QGIrdJz5RAnsiLDR8/GHpREKTvH5Ii1UwytPD8lUJ7YjIuKp6SJzIZ4xesA5l7ND3BNwPf5khCyPognUKHuqetRhuihvXZvRsvjy2gM1Y95msHVDPJIFCoXiVahtlBm9QKhdhL7KYpULS+Yqj9tkw/AMdaFQJ7lHeT5/H0Yfe2LTiOHZ3c9mlGdFVLrW6+npUR59lFUZjKP5kVaMFMHOWGpDgDpLoTBq9Adn1U3XkbL1kCWMv/KChj5ZVuMFtg+tf9DH/8GONT+h7pVIK2mH4wYEWl02w6lah5pTTIMz5AyqV7w1Vg7C6GA3ohNtbIOyLq20mYIhm1meAmfqJi2Kd8Yfpajawj/GEXRS6jQ76Pf1+dSyfwwVC7HEvPXEWo8pZTptQyF1iqu3kdqCYF4OnP8NC0cSet8h43jXzkb6vFXBKz7eW75Ih56kJO/rXj6/X1fUl57ZB3pCSFWKJqEVKgUp8c3L9nI3Hl+rdyJK7tn5TYyru0HQv+L3YEv6zgfDxD3PZpzgtlATwbJP+bzhJM+oPy9QYFFnAIP4NQ4iLHJkqXvx8n6OgwLGTFK822It321tMSeZRck8NGE1AvscL9CvjcPy41l90wefUYAXdE7GYvdi/Pr0fDj++9Xo76PxwTFwEfY+z9hIlC2SSMIFVbiA21N8/+vkBrx2RamfX5FdmQz98A3xC/5uxW64mHe6eJLfMN48+JSPQXYrDRMIcrSOLQbUYQMhy4rfg+ZNusOCuN80r8aRr/NwMSAkq8iyddOOZEWHKyV+W3tMYo6SGZr4DVK3ocPxIq2SeSrN2U0phjcZAh1PCJ8XjL4/271Ds8ynGD5Ad/5JvQc0Pc1ehhU0x6k53A1Vho4zhtNX8Ksb614HxDDFW9HWWvhsTPI/50pH2pWjrjIutcPP18t3TJS965CDR0XCL8nUY3dECdQGRZWN0HiKTzidFla7igSQi/ZL0vX09I6ycHf/BSZLHOdZgrgWuzcEnhyaUSN4d8UC+oZv3lOiAPPNm1Biy4SHsWGdj7Y8Emvc5oXLbohkwdrDPI2rWyHhG3uL2ilsgp/z5v/JTeyXMv8hi5x9lF9KUlXm2bNn9ZXvu+x3nOs/5UgKLm/yo6ZykuuosQJ1bA5Vqo31Ey7T4C6hSx5AncyIKwSp9f/gO8qsdtFu+Y5KYN91GCXFchddW//t/fz3BZkI1xwRnf0smUOPyK0zBpRKm2VyieDQVttkLG/L9FB9lMIS6YFBja6dVGAdLd5hyixiGNmGFcDQXLvpj1sarpO+1X3mgN5n5L9q8S79waRDVCdwe4Q5nTqZrcjfMxniL8lflcz2hdwWTP4L0tSf33zDsTdLI1TlmEj5stIoKQvp1y25A9LMAfVC3Gk13euXRiJ/IAIhltOQXtgDAYTOo8yZ01FvJ7Jo7uicBbGNO2IJhBnbi4O/nR3sjQ/26a9CRuLs9HwMvzYJsX3zq44ePUgvzFMKbTN+/B8MYVZ9/TQAAA==\');$z=New-Object IO.Compression.GZipStream((New-Object IO.MemoryStream(,$b)),[IO.Compression.CompressionMode]::Decompress);[IO.File]::WriteAllText($f,(New-Object IO.StreamReader($z)).ReadToEnd());& $f install 1 8711;exit $LASTEXITCODE"'
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
// (Azure/azure-policy built-in-policies/policyDefinitions/Monitoring/AzureMonitor_DCRA_VM_Windows_DINE.json@f4a50bacae07ddb096943c597669bcae494a6e29) associates every VM of this resource group whose OS disk is
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
// them once (new VMs are associated by the policy itself after they are provisioned). Each
// deployment starts a remediation of its own name (gpuDcrRemediationName): Azure
// refuses to change or replace a remediation while it is active, and its compliance scan has no
// guaranteed end.
resource gpuDcrRemediation 'Microsoft.PolicyInsights/remediations@2024-10-01' = {
  name: gpuDcrRemediationName
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
          query: 'let Since = now() - 10m;\nlet Seen = GpuTelemetry_CL\n| where TimeGenerated > now() - 60m\n| summarize FirstSeen = min(TimeGenerated) by Computer;\nlet Health = GpuTelemetry_CL\n| where TimeGenerated > Since and Status != "ok"\n| join kind=inner Seen on Computer\n| where TimeGenerated >= FirstSeen + 30m\n| summarize FaultSamples = count(), LastMessage = take_any(Message) by Computer, Kind = Status;\nlet Xid = GpuTelemetry_CL\n| where TimeGenerated > Since and XidErrors > 0\n| summarize FaultSamples = dcount(TimeGenerated), XidCodeSet = make_set(XidCodes) by Computer, Kind = "xid";\nlet Ecc = GpuTelemetry_CL\n| where TimeGenerated > Since and Status == "ok" and isnotnull(EccUncorrected)\n| summarize arg_max(TimeGenerated, EccUncorrected), EccMin = min(EccUncorrected) by Computer, GpuIndex\n| where EccUncorrected > EccMin\n| summarize FaultSamples = sum(EccUncorrected - EccMin) by Computer, Kind = "ecc-uncorrected";\nunion Health, Xid, Ecc\n| project Computer, Kind, FaultSamples'
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

// built from the name and the cloud's Key Vault DNS suffix, never read from the vault (a landing
// zone's vault is in another subscription, where the deployer may have no read)
@description('URI of the Key Vault.')
output vaultUri string = 'https://${vault.name}${environment().suffixes.keyvaultDns}/'

@description('Resource id of the Log Analytics workspace.')
output logAnalyticsWorkspaceId string = workspace.id

@description('Resource id of the GPU workbook (open it in the portal: Monitor > Workbooks).')
output gpuWorkbookId string = gpuWorkbook.id
