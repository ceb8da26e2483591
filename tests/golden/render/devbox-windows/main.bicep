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
      commandToExecute: 'powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command "$d=Join-Path $env:ProgramData \'gpuform\';$null=New-Item -ItemType Directory -Force -Path $d;$null=icacls $d /setowner \'*S-1-5-32-544\' /T /C;$null=icacls $d /inheritance:r /grant:r \'*S-1-5-18:(OI)(CI)F\' \'*S-1-5-32-544:(OI)(CI)F\' \'*S-1-5-32-545:(OI)(CI)RX\' /T /C;$f=Join-Path $d \'gpuform-gpu.ps1\';$b=[Convert]::FromBase64String(\'H4sIAAAAAAAC/8Vb+3PTSLb+3X9FV8q3JA2WsMM8INTUEPIAz+R1Ywd2N/EGIbUTgSx5JDmQBf73+53T3VLLjzD37q1aqEpsqXX6dJ/Xd75W5mERztzO5Rn9lpUs3LO8TKokz8Svou9NLsuqSLKbSXcvn83CLMZVx+ltGD/A+CSrJt3d4oYe3zRu24w7y4sK35/+Mhh0vM5IVv4I00XVcR5L4b+RRUkPbHe6B0WRF7sRPX9WyKksZBZJ0mVU5XOn0/3vhSzu6XuVzGRZhbN5L8li+bm3WCRxL4MKvUWVpMm/QhIR3MwXvZmc5cV9sChlbD5XeRWmvUrO5rIIq0UheeA8/ySLIC7CTz0ZRYEkVcpgkUV5UcioknFwl6eQm0otIC6SO1lc3yn1od1hXsxCWqgTlXe9LL+VYSwLfFhkSVViwFmR32Cf9sMqxKhkKtyuzO52rMue+CKWr4lvQqalxB1nb+fKuuGIb53ueZ7TlL/nSeafhdWtaM3iYGVTqIXJj/Kb/aSw5311dnF4en58jd/XR6evrveH5/X8a+41eliT8fROmt+UrM2oCiv5wDSj8e74YONE9d0HpippBp5rOIvLiyKl/b6tqvnO48eDn58F2z/9GOjfj+GRYYxteJxkeAyu9DjKZ/NFJX8L54mvDffrdn974Pe3/f4Au/SHlPP98L4k9+XlpOR/T/p9zJfd4ePlqzR/H9YutrdIyYOG2TSf7OxgSFgkYVbpy53uRRWtPgTTyDE8eFTdp7KcOLvxh0VZjfOLjDyqhG/tluViJuvvDqsym0PU1j3++cfHfhw7Y+f1653ZbKcsnX84WzTZ9CmGnMhP/un7D3BaMbov4efBWH6ugovx4dMDuHOMQHe70xAb7HUQ8OliltF6X7gdh7R6JTOKCxk7PXic2rCCPr+ZDfnaWZHkRVLd0+eDz3MOjlfzRUnf8XtIEak/XyAukUfo4wmik65eNAF6JotIZhVdPebQvECUHicvmwtjijR9ZdwE7B7JPKOA3Ue8vmVFouiiiVW68rck5nxS6i97yDb8eZ8DV6cdXuQiDuuvHed8kWXYo9/z9zycfFot7rUM0+r2XqlXluGNdJDPujTwMGFHWXH6309fjq4Ph0cHKw5f33nA2T+QCvD1KdIQJ9VXyJ0n+SfxpbMy08npW8zRKSQ2KBOXxsfglUjOpTz4HEbVyhM9oRwLv+G7+Al/9ToILsrftgxcx7xGejcLduN4nEQfS9cfiB+gShbwV/Ff4pJdex5meIyvwcwjGeVZ7JHo1lqsrYbuFZL7FzU34q2C05IWw9OAdhfSzpFQd9OUvNmtd90LxkUycz3eEa43mLa450W7LKS3HH8ni9l76KSib2fnJM+k2YBLlJ1JN/PIXPViYYFvIgqr6BZXvzWbsEhTe0EUd+f5J7f7MixJ4JswXciSjNItYDMsJS9QEGQ8efEFj+WFDCHR7UYigTQdiOwnGH7ZjSZ4hCcR9uh5iGKKB14sz0MTNcM+slAaHPwh71kL2iA/g1+R/GAvz6oQiRFDebXVLSm5pQvGjiAJpaDhoYhYN5FPBQJ5LFOJzFrcX+8dbVEiZm0/srY0H33GtjT7hPv2NmFihB/Sna/s4NbggwzL20X4ox/0lUnjfPGezd9YlfOZMvv3jHuY5mHVtm7sWYHSjTubLdqoOswqebNWV/LW5SUJvq1ilA3oyz8hveVUyq4mXNMcQi+PEfu8UCiA2MPDrYjBGvKP0h/nedoocvAZPqC/XU4YlB0lpdJtXiZr68F+Et5keVklURkALkRIZkgDRUVljJ/iiKOMTUbFDOoiRKMqZRVVCxf+p6cSXwWgzwH8zkwDqLLliEeie40f9PGbJ/wPyG7CEY6nhCHXj25lmkJ6hApDE3FNUnfPZZxQKodaWRwW8emiQh2iQVWx2DCGs317yB7CoZIn+VvARA5BdU8nGqqnl5u3BJbgXXFJlNekAGO0F18E1RRCxNu/PBenrJ/jPBdQhCo1bRyeySiGShKEoHK718HB50jO2Vd1FfEojBBIuVrhPGivOqC8N84Psni3vM8ipLqu5Bmskbz21YFNyM+Dt2FSkZ0+J5ULQNPvcxjwVtDtP5I0dT2xJtHZ6/xx0zrjJFbJIitRlin5POmLUi1sRQ6mIzXom5FHi4f+JYCTEUyr1JdYTB0Hh7Cmf3KXxEk4miVri+Gb4f5w93p0PLRjbv0ISmGwEhYAV9FAyLVKMT2lnEQVZfX5yfZVxhr45SwJ5GfpeL2VxzQUp2AqhaOmxB4U87zgZHV18gYKrAgCqFiuDo2CJpOP0QCpqfyjBAgtTNW8kb3iSDlWNKOMSgXX9HfO0pzCt3ovMYLCWZXeU41IMgQMbzCktGTP4oCn3Jw/acbDRKax21WZoc5Uky5lF7MWnSQzKfQ44ZOS+ktwNjIfihwQsEpkecnPT2zEYwR/96GAC2bjl46zrDO1FpQgIphAtrurusNxEgwKPpTc+pVFxA5rOdjweF/hO8uWU124MbwnlHSv3oOpWvRGw06teNWau8qkqE1ZtTxa+OfhJ6RmXZsOi3zm/w5t2yFO/3l2WoGP9GnaqoBTX/k2qW5d58ULx1tTvHQaLVDcmkR6IqvgrXx/Lv8EKCEwpnKwawR7/EDwmpvjknCkCzStGjVC1pSgHT0Ipvt8b1CQukTgUuXJ7T51ZYUsKY3zPewG0sU8z4ARPKOdhpHuahUEsAQPIcPZOevisixbiLrrep7XZFaXCsE0ycI05cTJz+ylOU2JLblsZGvQ+hatkqxRK9sctle4lDs2z/ihQqvrTLZae0yoLTmu1ck0CAE5UoFQbIMFIQTdgDeqKtEtAk7OhFT6OvyKgHKzP+Opnb2L/V2hhe9clT+4l33/WTB55Dm2axzTYITaYCIeCDDVgqn2zFI0QY/OmJ7UnaniqDKyt5rj98+Hbw7Orw/eHJyM6x5r6bHN8fGwJBjh7S2gegNoAGXMRqCXJETTMX0bwj9RPJWyykPZubVE7aHm6Q092wOLqKVxsHs1JF7b1LWifgmasgoWHDAqqbmT2VATKMLfS8OyZGQITPVk+/qUe3KYTzm+FxyFZfUShfJiTksJLFaDvrcQRnsa9JcepYNjVBzUOTSWHquqd2mapFg5WfWLAJelwamuxgAjyBUoabIwN7K7NI5nH+nWkbyTKfvDoAdW8rng3EbqkM1YCeh5lEeNjmv8COs9uGMbHLIqr8PytgrRmgijW7uGgrJch4xrb7828E/5kgnwZb9XBZy4C32hKSczhgZmfF1IZranXv4TUTr5wb2KdaBqWY/gb0zOtgLWxmq8WJq0ngEZYpEBnu1pbVxqApS4r2IEktes0ofNkf69GvX3HK8N4TgrwpkzacU/OXWPuI9PqmvWqRvpo1kzQ0szROVRWgvd+Gr1YZQ2BaGdORI0hj4SW++Kd9nW2hS9O5/LrGEWtBqtFL3ahaFfT7FWRTl0DQ+m9NZgixiTbqmJuy461nzEK3Xt+PQ6VJmG0Ejwz/H9XIp9bmxAgMHZ8oLiTgW8InF7Fgz5SvgZbSfVR+I79dRUbNHgaKZOX2QoJtQwx9xz7CZBX+OttR52zuXNIg0L5l3fg3XgMOy02EIOJVpWx3CGgv+1kcF+Rm0VlHmNXotCFQ5NvKKo/+ls0NL1jphHr2OIRzOwVrFj05BC9azqQsdmmGrh1kVmu8o6j27Aep+T2OdBwHr4rPfTrmKiEQJ5M+q7222KhlmbanHJtXjL9/+kMw4fNMyv6rhjqydwdcpnC7/qM4Ytu/jonPhQK7qE9rlRmyKWgTZNN9MT3Iv0xNnu+LW3Q9xPBeyrexZ11iGYR4fbx785qrEAtVOuZRh0dCBeAPGKIrwnomAVaPBeRAAtpj1p8AtviRX4KXIFxb5rYEk5T5OKwvo3xDVjY4BeSpE8NBjRbZczz5osjOyriiUlXwW/VXbjLmQwoAiIdPdDTg97KJ83BLdoeewKUYSagIzqdTQHLlrDcW970tGc+MqtJ5POKkfensSwTNPLHzFHiztfo1Iz+qd6tCHWHxr9M0bbpLt4UPYvGN1Q8us3pxn9FKPblP2DW/kMw2s+v7VfiMZAVaqO4fjFygC+3Gnx/taGD/qTju14zbPkmR3F/4u2nZz8o9PR5wFLFmSGyZT29kOEgy/v8iSecORw8+Nq2lioxEqe5nlNX2aiBV7ZVw0aP6l9tY4hcnkFEFx6hsKeSh4K3iON4w069JYiZy3URVB0Z+WNOdFg6WbOm4rnFOrqZX/SHGBsNXlGSBA8sGrXLIFJLoVPypvgSGY3BI4h7Ke+Eqfm47ujxXuFCdx+T93/xoWU7KBVsveFHrdSnD8NkYUJo9cHp1lOGdURTcp6sbTvrdA2SL4xvSpu+GIZvWYsG8/c5JAtP2x8Qy23U/cSamWWfcF8taCFhYOgeaLI9fqI4dKcVREXT0e//iwpUZZuHH3bHGBNLLaVb5jjLLphG7G8pd3q2kp5dAxQKyXQQ5Vb7K4WpBM2EaYPnl1WiFlhCwk5dJx5fBzTiR2jISKMFasCT+VpO91bveUmuDbugmgdcVjrZQezxPDa4R/arWT7cEZUpjUgPPNcWA/qj89F7Y08N6LA2nxIrRjzrcUSSgSvMcAw57ucQUVQ0dWKPgBya7DahZdVf2F658FWlYSQZ62qdy7naRhJrRkP7KmIsXDJ6mPH+V3rGcpy31t7Dap62hrNInFqkE+nClkjkdKpvevXB/jeAz5mOVAOkMmcHKOP2ySNFRJv7YT2YN33qcj6Qe3gw7ypQiVxyK6DqQI6saOib2W4HzX+oFGmb/vnVfzl6beuo3kYvkWpQC2ZnPkcVfxO+muUpWkOYQrGFrp7qKuJdl+LsOk3NM1gmaVR4WMRFTWJvIaMcL/rbd4mSrLT5ddmFEAOOPh84M+GD+HwVXfWEgo6zW8gUOr+UklYS49QzE4RRbfc1ho6QvgCqpErAS2pM+xSWYLfDNGQPjD5gakUylDabizQ2usXLjhL6z0Cb/3Bshl2kd2agbZlRuhVtWnc7l6ayKyyyCR1AXxlJLFLDVv6E7Ol+i6JWL5VMtlJjqoHYRMMAUo0K1Gka6H+Co2qJPXqvo9Pa82bJ9Ruj/aGQ6/z6ZYaLpc3rMYwisolOUy5UjUx3F/DVvFAxkLqE645zG28x6MfVWdyq31VbRS61jzmKKTkQUt7eU8ck4tkj+4/TSIG22rwSFeE7i2TIg+lXLUzJb/u5pz+4XCtiq2ed+3am/m3Xo/HZ48HwYBq7C2qiCe0QGIrdJz5RAnsiLDR8/GHpREKTvH5Ii1UwytPD8lUJ7YjIuKp6SJzIZ4xesA5l7ND3BNwPf5khCyPognUKHuqetRhuihvXZvRsvjy2gM1Y95msHVDPJIFCoXiVahtlBm9QKhdhL7KYpULS+Yqj9tkw/AMdaFQJ7lHeT5/H0Yfe2LTiOHZ3c9mlGdFVLrW6+npUR59lFUZjKP5kVaMFMHOWGpDgDpLoTBq9Adn1U3XkbL1kCWMv/KChj5ZVuMFtg+tf9DH/8GONT+h7pVIK2mH4wYEWl02w6lah5pTTIMz5AyqV7w1Vg7C6GA3ohNtbIOyLq20mYIhm1meAmfqJi2Kd8Yfpajawj/GEXRS6jQ76Pf1+dSyfwwVC7HEvPXEWo8pZTptQyF1iqu3kdqCYF4OnP8NC0cSet8h43jXzkb6vFXBKz7eW75Ih56kJO/rXj6/X1fUl57ZB3pCSFWKJqEVKgUp8c3L9nI3Hl+rdyJK7tn5TYyru0HQv+L3YEv6zgfDxD3PZpzgtlATwbJP+bzhJM+oPy9QYFFnAIP4NQ4iLHJkqXvx8n6OgwLGTFK822It321tMSeZRck8NGE1AvscL9CvjcPy41l90wefUYAXdE7GYvdi/Pr0fDj++9Xo76PxwTFwEfY+z9hIlC2SSMIFVbiA21N8/+vkBrx2RamfX5FdmQz98A3xC/5uxW64mHe6eJLfMN48+JSPQXYrDRMIcrSOLQbUYQMhy4rfg+ZNusOCuN80r8aRr/NwMSAkq8iyddOOZEWHKyV+W3tMYo6SGZr4DVK3ocPxIq2SeSrN2U0phjcZAh1PCJ8XjL4/271Ds8ynGD5Ad/5JvQc0Pc1ehhU0x6k53A1Vho4zhtNX8Ksb614HxDDFW9HWWvhsTPI/50pH2pWjrjIutcPP18t3TJS965CDR0XCL8nUY3dECdQGRZWN0HiKTzidFla7igSQi/ZL0vX09I6ycHf/BSZLHOdZgrgWuzcEnhyaUSN4d8UC+oZv3lOiAPPNm1Biy4SHsWGdj7Y8Emvc5oXLbohkwdrDPI2rWyHhG3uL2ilsgp/z5v/JTeyXMv8hi5x9lF9KUlXm2bNn9ZXvu+x3nOs/5UgKLm/yo6ZykuuosQJ1bA5Vqo31Ey7T4C6hSx5AncyIKwSp9f/gO8qsdtFu+Y5KYN91GCXFchddW//t/fz3BZkI1xwRnf0smUOPyK0zBpRKm2VyieDQVttkLG/L9FB9lMIS6YFBja6dVGAdLd5hyixiGNmGFcDQXLvpj1sarpO+1X3mgN5n5L9q8S79waRDVCdwe4Q5nTqZrcjfMxniL8lflcz2hdwWTP4L0tSf33zDsTdLI1TlmEj5stIoKQvp1y25A9LMAfVC3Gk13euXRiJ/IAIhltOQXtgDAYTOo8yZ01FvJ7Jo7uicBbGNO2IJhBnbi4O/nR3sjQ/26a9CRuLs9HwMvzYJsX3zq44ePUgvzFMKbTN+/B8MYVZ9/TQAAA==\');$z=New-Object IO.Compression.GZipStream((New-Object IO.MemoryStream(,$b)),[IO.Compression.CompressionMode]::Decompress);[IO.File]::WriteAllText($f,(New-Object IO.StreamReader($z)).ReadToEnd());& $f install 1 8711;exit $LASTEXITCODE"'
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

// built from the name and the cloud's Key Vault DNS suffix, never read from the vault (a landing
// zone's vault is in another subscription, where the deployer may have no read)
@description('URI of the Key Vault.')
output vaultUri string = 'https://${vault.name}${environment().suffixes.keyvaultDns}/'

@description('Resource id of the Log Analytics workspace.')
output logAnalyticsWorkspaceId string = workspace.id

@description('Resource id of the GPU workbook (open it in the portal: Monitor > Workbooks).')
output gpuWorkbookId string = gpuWorkbook.id
