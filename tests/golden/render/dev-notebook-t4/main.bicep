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

// GPU collector: the script cloud-init runs on scale sets (gzip + base64, run by /bin/sh), which writes /usr/local/lib/gpuform/gpuform-gpu and enables the systemd units gpuform-gpu-collect.timer (every minute, /var/log/gpuform/gpu-*.json) and gpuform-gpu-health.service (127.0.0.1:8711).
resource vmExtension1 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'GpuCollector'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.Azure.Extensions'
    type: 'CustomScript'
    typeHandlerVersion: '2.1'
    autoUpgradeMinorVersion: true
    settings: {
      script: 'H4sIAAAAAAAC/71de3fbtpL/X58CZY+3ZKKXnaQPpWqva7upb+PY60farqpVaJKyWUukSlK21dx89/3NACBBipSd9N5tz4klEhgAg3nPAPr8s95lGPXS69bn4mqxnMbJfCBenVwIL57NAi+LE2FHt6Efup10Hoo48gLhinkYLbNAdL4TvVs36c3iq57qTH87T7p/pHFEr3f/WiaBOIqjkCDtXgVR5mAkN/JFdh2I68CdZdciiPxFHEYZP9tdLGah52YhIPyk3t9nQZTSg0USXwapsLd3vur28f/24OuvtredbisNMtEJlq0wSjN3NhMdX3Tmov/Vixeit0xpip47683CSz3RtZm3MKb4rqG1/tvBX/Htt18AQz8enx5NDo5//KL1+WfcifC4WGXXcfSsQGYVlwnWGiSBLy5XuslLoSYtn3qzeOl3QmCsLZJlRI/SVZoFcx/L/ByQhTAno2CLg19PDvbOD/bFSG7Xv9y5P+bWtf+VN9I2IHYUxG4WzoPEGaBpIP55dvxGzEJ8WgQJrwnbFTeDryWL3/Df0dH+PlMHFhe4vGDe9HU6aQZu+27m6oUTVSTLWdAWGO7HcBakPQLv8AQZ9qvF8jyYBfMgS1aTvdcicy9nwctm8K54eyTuruM04IVmcTwTUzecpW2BuWXXIJP0Or5LxTS4k8hI6WkkwiwVafgXyNpN283w75IwAw0TWhX9J/GdsM8yN1um4rOhsOIby2GiAIa6zYDevD3cP9wdiII/u2L3aH8gsPXMrfbp8d5cfNm9fykuY4zDu5heu4sgddoimKVBM/Ak9uYSSDwDxYpw7l6h20u5Xi9eRhnoFcgnFJ/sHYpLTB64whQimoXssAELIThlmYkAfwGesaww846+dOZhmobR1TvCTsoSA0yyShXOVt01TkiD5DYg0H9DsmwgulzkYNGzFfhip98X7y0DqIRJ+xhYA2HJryvrA4gJdElTaAY/c1OQlTtfoGEI0kqC9JoXrZbb5uGsi0h9t0RMeLsLQaX2Rsj5Er9IRRJ614RGYBlUInbu74XnJkkYpIwgfvMSL6I46tBLN0pB4hs2MV7OfMnIbiouopsovgNnR3Em8pkqqfU6vkrFYQQaYvwvXGDfnkuGxzZ3sYNdP5iFt0Gyesmz0ZKN9jX0Akw/AKUncTSHdGgLkvhSegA6xONihsljW9xpBnoKXFqpxKcBDAy8iNNMLpcJi+a6CmgUohISaVq2H755dXB2Pjl4s39yfPjmXDytvjk9vjg/EPZ7Ej+H/gcxrDbY3ztti/dpBgTN8Xod9tn56cHukcPMwFNyF2EHGGCKrLTdPTmcvD04PTs8ftMmbDMzY/OIJ+KpcElgzrG2ar+j3V8nP/x2fnBGIokHcsVl4CbMdDdBJKYs1SDZwXVAcugDE2G2EnYF0N7rw4M355PDfQy/9MMAGmR9RbsX+2i1d+CAhON59e358c8HbyYXp6+ZZqXeI0UE2eyyUFd77UCKiOc73wA+JvcClAieSCDAQ8gcucGnJM47u/zZJlEmtsEjbfFckJC6IymNPiA2GAO0x7y/UoKEUmhBXwD+lFQGc9pVjA/5TkTgG0VAXXGOBxJZgBkF2CGWVWAs9FzdgREDSeXnm1b1BcnN+YIUbi6X7EUSggEyMDi0Tug7NEKOtaP9M8KWJnYi9HXGkJhWkhBjTF0vS1/mAjbMCmInZl8BHUKPSujlceX0T9h8Ec8IUZHvJj50/mXiog/JPOCZuFNcXEL4L6WAJ10nlNUzMGwXMl1Ix2F4EgDioGBd7D2EQOoM8nXi7+T18avJ/iH4xXx4dr57flB+zDj58fD1QfHon8c/qEcGPb45/kXYh2fH4usv+9vi4nzPKTpAXZWBQk8e0ZNuK5wv4iQT2LaA7B/9/WoWX+rP11m26LKySfQjsjj05zjVn5K8exp7N0GWf1teQtt4QZq3hIGnP5qjLpMZ8N8NkiROKs8WbpJW2yXBn0tgNn+6DP1W678vDk5/g2iyWySwLQKPzZ0v2iEM0fs2NWpH7jxoL8Eq4V+syEgYt+fBPE5W3WUa+PpzFsNMbZOsDRIYKyB6amhJyIsYqqLrJ+5dO/A8Oem0u4y8OElArYHfvY0hosFuCo6fkLCfKHFntZyWogHMNk67Sth3r4LMtmooxWoLq2pmWk4rJ5kHoOTtGA6o1YAh+fguTm5mMVSbDSYhgcJ8ny4XxHYpZAVIW8zdlTRbpNBYzi/RBuL4j/iSGkg2IPnQZoMPLB9cAU2tnGY3TDNvU51ij6Bjnj8fHJxM9nd/OwOQndavh/v4i00hIQM024n15u3p0UD8Gvrid3v0v874ye/gOvt3/6mD3q2WH0whDO5sZ8BbOA3vIV6b5wOWQjdqGU5lY9mPzcUA9BDlfNPNP0D7LeiDzR2wkK3fOlvzzpZ/vvXTYOtosHX2P5YD0oX69gK7ZVoX2V9hNI2HOSj65y9gsbvMvLyhnFDj8LS8WgDFmPPQS2Dse3HkD/saLcC27cHlkiuEqimWugCKChbuqpZtCNcF8cQEQhcyfnieLLHpGdSI/ojR8W74rO9U0bboyg9e7KMhpEvmo6X6BE5qSUPOCxaQnsdnB8RbbXMS5xL2wf0ihHPpkH0QrG0OLFjgH8SEPbGDnACWc/tWrdOyrF1NxKxVCtcCimXv7C27QG+IkslqGL3p7Y7b+AP9erZckNQJfHqgLEHBEx13AZbB3wJzt0QR4cJ21hGrpjkF02WYkrnot+5sGTC0teY0G7UUxV35ciKMJ5fXqnQgCmZlzl/YfEBnO9JICed+ahdIOdHq0j5bxFnvNLhaztzEYbOB1afE1kabhgjEuwaDkQd9GcdZjhZ+LvmOzOLuH7AMbEP1WTQbdpoV+6WJt4FNcw1p1eAY60bvQavqiol4EUQ2XjHtTMsNDOTRLLokFe1pQcUFAF5KHYim7mtEXey0Y7CcC11JH6DpHlo57CWSl4WkImyBWMkIRPc1+nn/oY4S/8QwZbXaPZV/bTxuk1sGxkyH760jtc/k8mVgdOtDBTEVMPjKqML3QibsMM6SMs6YeoYGzpJGlGPBd1Yd3rmzv5wvOGjSFlOnRmS7H7EVBdYkp3hL39U6XHNM4kFOkPyakEKCfBxZhSCxxnIKc6msUrgi3jV01d7F/q54KwENfk+f2KN+55vuGKqKgTm0lUT3Q9GXDMuMb0xp3r1K4uXC3uamc9kILCbneR/6E2mT2AgreMGEDP+Cw0lHQr9HWe4e3ARJFMzISxDcQfpISXAbxoh0SM8AypQjIUD/V9+0n38NTaaZWvYZFrMsEZjBcsVkarZPQ5l2ycm2nZLwVBum9quGW6CW0Hdk/REDP+7My2bEGZ0b/jemfxG44C+dKO4sYM4n1jjv+ZS6djo8BVIa9HfMDMWTYvSiwaXqsrbppD4lMGi1FA9hoHSnMDsR6rRrd3Q0NvdzRsRNXWG5W21LisWUdYwNfyh/dxOshhDeDsnuz0Xnb/7HsSsOnDmtt/D9j0/JurIVAROyEF2DcFE+xAZppFqw8QYDv4cAWW/hhT0/IHVA9pt2OzYA0U0YSrzIehSXQ1fMkgeQUwQAq3+/3e/vWOTFUTTOBT49RJXIUKXwAPk6A9G/7z8TfpjC8kGkOY6yhHxJeNCnEGfw1k5Oj8H3X233gVcA3BHKwECEhsL2nodAKkx/imQfQtGBEDJHRmsoLPiF+Gn/6LC3f8IBglhMYf2TP4GAPQZ+DgJHkJfkMDVukRVOS9h7vXt2diCxTPOjpdLYGkFnR4eT3dNX1GAk2RVEiQAsPBNJu/QFHgoZi/TgNnHnxQvyVopv7KRYbRMMVugvvYx8oKLdMgohrUO/eCK9Fe2s8GPWyO3WWEkY7O0EBnpqQ4z4ucyEPOCIKfbgnXzxrhI1HeTRVO2y00s5HikuRBg4PJqLFjJr+tJix2uQE4ks8lC79I9dMiNyV9d6YjmGGC9Jo7JEKvUHdEIpTxwAGoyD2xoRBZUFXNvO40dhcm0exHvMIE0yUcohBLaiZWAaQ7ckfuTy2JrzANlNspQmalco1CmDi0hCbpsSK1KUQEJuQltmE1UVhPCOvvL2n+ye/9TWdqcgaQP7Ggkk8GbCYUqYmirrgxfUmgMtiNzkQoDyTYW6YUogWFVBQn2lPdQF14eZRnwaLByENEelfdDSBu0B3XLGZa+nvGeI89LqTGz6jEPdLExJrdkLRz8l+ZGm9qJNX36dHP/s1BqJi1a9eU+rrpoaWH8ec+MMGqc8EogpEoB2ga0uiYee6g3Ud6+6yIzsdLc72xBzSFXylwKhDeq6CV3dXPooCeFssILXqFjujNWxnFF/vFG3Kwi5WUN24YQEEWvUEk44QOzH3pKDbiANl8UI6El6qLkv1xWvkdkD/QWgooCiFiSn05twsSCP3Z2lMeIfQdRSyZWVuEZOSCAwSFEtjqXP02B2S4lZa/TL7ukbhHvHotvtWgg3yJjhiAZ7Tx6XDOKSkYWF5Oj2A1LniTZ3ae778pFibiLwED7UNXUN4NWRHgqMVSsSRAPSMGhkjd5bDwiANSkIdGEKajJdxLIm8jONMwoH43x/HvBNm8RNmGr/0MZQbWHPwhQb4YfQo/XMgGYN7AA7ZELd2bIvtl4l/7DNcDQ7lMGML/+ATOGMD7Uv0oIOb4oFpTVRHswImzb+gGm5FFdXbJQWXFFZArsUPPli7sproT9SAuXgc4+MN6gKhqbm1Hv3xvfRFVPCFW0wj1Se0ZWaDksc83k+FQuWDVmLWmvf0u6VAiCRzp/28hzoNAxmnOJyVXRkIGBBYQoalWQvvbcYFrDY7UIQwITI+LP0L+0vkTmkWTFqGfMuBWJgWb0sIioWIioWN4PWz67xkpVEA/5v15AvIyy8VjkZp74b4g+zDchea2+H5ORwZMZxNkds1vpikXI/8tDPGgAO0igpSCzmNJD8IvRuSPE8YQ1WFnfTMAFtk5nFL98JG44BhAzctNSRaXsSW8UelnQn5yNDmZdMy/j082/U8Ea3KnNrgfgbp2GXKl6rtuQ0AZpiQuaZwCXUulYsRA0YonhjTs3qdY73x+wNFyAwFZb9Z5I2YIUJ5ZFs8i7arE2KPbDpDRQrCUIEv9IU7qRT1CJQ+UXo9SjFjD8sh6QFLQPjVAKhSkvyfck9SsDUgQQaE8wloRlmuA4q8HM0zoVjWUHmJKoaqghggeJ5ekWOCI2IZVCXspKmGpjUXguijBD1tNEXtMvQ0yuFvvLyoTJCMvS3fEtsYX0qnMc4wbDvr0YsosYDYYi5mqWYqJC9S6gYbY8dljCjsRQ+1J1D+580Ar3aDJ8EJe1QyUBTb+7I9VeePY04pxGVGy+xIl34mTu/9F1xhZmpORpygmDIhTKPzVULCF0j2qZcJrSUElB+t6pkX3lb4k4VDKT/3JT3RLWmb02Q5LsmOEiGAQxLrjmIxMJ3QibnwCZ5eoxqkibsBxKkTa0sx6A+YLfrwkyL/HLqhKZir3lQzLZrT18tloeUCxzmWK1rcoFE4ZCliySm9X2QyKCEIqZYC+MN/AUJg1Am28/dBEbkhN3vum4XRVryJEg8mLLDApdLEjKEp6vp/QRp7/AWQXqJwNIr+aUO/BFnNi+Q5DwKfzAgI54wyUFQDnTCYYVmEOe0UxtgyJ1sBHJeJFX3DBBGrpWAXMdZigSEXGHlXeA3LPGEXOR92LK/SMBrDVjutWsf25aKmEDOcA57Ir87Dzb3lqDYKJt8ZDcXPAmMTT5xtMb2NY8OPO+iyE4PdVqI+HUtMYSHNRD2WYSomLUkbClVlAVWuIJUYlN9Xcl/123dHoLrGjwJ13ILpz4JKvVwrrhZKH+K5s6tXyn3hf0e4eLE78OofQ834QPRBIco9IMPzoOqe4yQQymoJ2eufIayrla5scQ3FMgj/A/dQ6mYEsbIjLVvRs/hyLXFrSMNOnzS3kQX2nmeVmJWGPPGjAoxFixpNjEsBDr88IpM16rboU2/ykY1uUCVlfy7bZF8Q+utEN7LkuemttepQXu5QZ3u+xibQNaiIMKHfeD9MwKVJDe1AiWP2Xp7unskWNwq0SvsH5AkMtQiyeumLiTqm/r9e9WpXNRmXaqU4AWHm8Xh/sOaU/XYo+IsZJZDSiQQeZjPz9Tzj1CnjCYKFiwpbLbFeHlIW2qJyeguiUx+0hPb/edfv/jqywdVpgYk97oEST7aAGpdcdbqCl6f0RaZ/CCCiBB/qByFI+w9WnVTO1Kvus1jtMujtK7XpNj2pD4TZ6wGxavEXVyHHiLBCLlR1R1DF/YvPOMGGLtSlX5s58dpykcpQykeJGHK1+I/re3IlTEUXXC/4DkXyu7YcDYp1Qea50BouRy/y0VTRIlcY/9FylVUHORLe/i0xylNKicVoJVslSu+OJpQIfywyAaVM3Uqc0t9SNSSXJEzzcFL9Ao9yFBXMnCF/NDILWjfUr0nC5rygPqp1jTcb83PXYemtYNVIFqDzF9thokXavnf5oivDV6M1ra+XsDmqKon8VzS1hMk/ScPVQzJS9EHCqz6lqpaf/gjwt0NwI6kaTS0tnyKM+FfRUBp9RyEjUSN9vxBW7nizWJZLE8Rc8eqHWRL2BKJBvHWMGnpSRGS/pwMCw4bem6Uj8VzhEEXyAotYU/d5QyBexfJ3MyR9fp46VLtmLARHwvuqKxJ1zQZ0FOiCFn4K2v/r2GwU1qKKUKe5Vg3SB6hSxu2+YEt1ttrHhip2V+9t1yH12rc1oZNU+k6wXaK2Eop8TZgPUlnfiQuKD/EoWD7Idqo2fYtYWSSHtj8Arm5QSy51OD8gudIAGnDflgO4UmES0/A2GCNgMtElrvLuctVgjJUgbgfkI0URB4guHmNOMdYfaqiJ4Kau5l3XSEf6fI46kBMjmFZpU/UmhrkSkC4bEEwuRKZKiotArLI+V1CqzVJMm1pEx5qwq9UxqohNAZcXRoa/0w0GssOlcKjhrPmOqDneipb7osSrzxARcbmbIE5r3fXM7G20pc5FgcgTbLnbfmWkgl6M+VxNaAPyLTMxVAj9VgpptJ4ZfKpXXdBPwaqB//vEoBR+RQhSjqoF8CvIUee5y1dnyimI2IbREOD2NeywUDqVlrGJ1DOefDR4EW/P97MrUpE0dblupTKnAhpTq3WNHrkA+cihviEt5wL+AtIhvRQu7pZNZuDPCC+rFoFlTtyLCIrJNBdLqgCu7zjdYqZvVU1Fblt8U1ly/R2sYCRTcsN9IatvSwZjTRDXf7MdV11NqMqeasUCh6XkxXVMuk6W1LbhvehD6RRIaKuiKsvSmyMoJhVlByPh9OYrIiyhxaon4968HM6JOBmQy+9bUexLFXFB8pIpjpTUnbCi0o8I5ACcxwtygWepVwYHwimmpNlVopIlCXWlIbx8vwSdWRHnxrryoe25YyrkpPIecr5qO3tmmqganZdL6rWgW8WO/RfvSNfkj66tHxKuY/GtuzYT0c748YW7MhPR88aWtS455QbnY6eN41adsll4xebG+d+t2z9ZVPrkmst237V1NZwd2XLr5taVpzJArHfNPUoXCPmoKY20l3K2au+XdlLxW72G3bCdEaJBTb7F2uC6nGmZ8n8tB4y8x2DVT+jollV1U5U/zeihkoQ/P2A12YbvZBdppLWS/l7avohCnkMdeSqvi50alyBUQ2ePkbvswImeUbIrlf0ufYs7ybv0MiSSLTGpKJNlVltp8+cU0PGVbWBWqWEZKyqybLIJ13V9kb4pTgyFWFOEzqcVinP49NwmXmmLuWDuOp8nF2c4DRPyTnFaSNdGUvVag9U6OWw6grwqOCCcgDVCryPOYzSUJkUycKN78rnE9QhCXli1y5MC1lyqrnC0ufM6MASHcjTdQFzKrvMaJZTPkRXe3pOBp7S7ty9CfwQtkR+lha0mmaT+IbFz3o744xRTUs6wETo4qNQLc3/VESQo8Kic2evgohr8XzkgeTR0uL9njzvnNArDmVSMPA6Trnc2jbkvfV2fkgAaFCVPaMHXLhqtNIHsUot9WFm2ZqNdHVCy5Ak1oHCPcRViu75VhQtTiUB/5MOVw4q5CybfSiOdrCptunQFkSNOjuRy21VZ6x8dcNPVzK4KXhZ45qpHo+0XrkblzhVJpxTCkuVLXXKDIxfprmt+Zav6w4KTiMwlLJdO3i0QZZNu3xa1s7PJaU2nWREXGpyE6xSdVQyhZvPxwzSIdmGGGRAWVQ4eL/rM3Dqdgn2n2d2SfSVhi9KbDgs+55PQOeUipS66jYobtqwZGuiAQCALijkrzorNl9s2nkJiFHZRVOrireMB14/r1Wc1ZITyE9rYSR9WJX7PmZky6mS3WdrZFd3CqnxJJneuTppJLQ0ooP2emR5WUHdvR8pJpSqWxbu2A8gXZAGs6m8F8Kl+3+KeNC8uOvEeSlcBVwaEWK5YH1i3A9Rd4UDJ2aN0NSNPM6FIOdS31MiscUTtfUC5OUQ8gIcvuKnOHFNJdJXWgV4yyyekp9jZ6IjSueN/WCWuUiZgrbzzo5Tw125D0211c0HOsoc+0TvtVl/uzKIk4QCy1pAdZCs3t4Zlwr23VUle03dv1ULKhMAU+E8vpWwTNXXJ1CaIeVdHP+es1gV4tk9OWypm0R+PvhNnhjS17OQkOALWejD/h4fmJLXq9An4/IU/qpuKaHP+Z0k62anld+dwpcCuBmV3GRcWI34OkKWmNPznW96L+7vexQ85tty2vntZrOYZy7uXHUHR3EJDYKo8TKB5aNMILroxLyRq7jBJL+7BHZB8xUlTmv3/Pzg6OSckPK8RfP+ZffwnO4F6AM2TVZOm24UA2C+KAbxXApZ0glHPiFGW+8nbkgXd1CuzqUbrnh6DkPc2339muA/6+fnrWl9MKijaXilTT4uZLwZNB/SlRtIAYsbqbDzslpjbz+YMUWS8F6XC2WhiqWG/8c/LK4WGBUUQMUl+E6bP24219Aiv8mGzeAHJlo0Lp0qNiZggDOiJ9Vh6qxWNCpIbKxs0/LDjzoGb3z3tOnJ6tE8a/ysb5T+aE2jzjNTZbi/gpRVCrPPBz/ypJKk8MDfYIM/5rSz+lt35lm7FV09saSbTy1RRruJEfOKlO5P5+cnjJ36+w/oZgy6XyEoQAY1IGvN/3qIfSp81PcpgIr4qIi+Q4AvDLI982qFzRcuPeYOATp5KRPEd3S1lt6HP9m0SYIUUsUj8wZElAu5cc5MTcT658jyZiEV0IU+02G5oTShAjJ6rP9it936XhN/IT7Hylf+XpWAbTpDb3KACeEpD/O0dMsN0ZBC7Z/O5pP3rcL5lls9kQRNK1rjg+1+zszUmMzynX5/wxHJ6h0GMLmJWUaWPNc24d2lYljLqp4RsgtSaoufg5X6dL5arLmX0lRXJ7gN5uYaUgwwEETm5KSrfI9cKU1lNMACxl11ZMlaZtPO1yS1lPFoOZo0SSNN+B4t1TtnCKXjCqI944tR6Go/qcfUITE3YptMtx+U7uNimcGGHMsLPrrY6LknrpJ7ag5SCBvglEtnlZnURGiOxrbYzWAEXkKDrnntrnkYX18ZAINK68o2NaGIlGvmAlmZ41Hh1u+IJ09yNOlzKVCnVEKFDVIStJCw9KgoqiSQRIrt3FytsyGKOsqYbguDnQM+kdbNOHcFLH3xHLa4xC9/LmPY6VoTOpVyJaO/upmusb+ynwDCMW7fQCJqK/1eEZ/JyIUi7iYyrmL1qDaQF1EYVw28/d4yLr9TEsyw2sYflA+ughOpkUUjgap2hN0+F3aJrQ0i52Ou9SBxMqQNpD1DoMIfWifHZ2Rc5mKnhE1rd4lWiQrZkyD6QV6tR+YNUUO59R6SFpCyHSJYauwWl0f21GnyUvv7zjztSMncUfPthDLOkthUad+lf57bZjWVcSCiytuSGwtZWDpzRPdLfjuUovBb2Hj9WuEn/XNDwKmNqJVJcsDR4NlDUsmYBo8PVxU8IQ9ky/kgxlp8/ayUpzJmJ8PDNCcTpCaNp2IbkDRdlAHIu6pmQbCwHxaOJefHGFMJA3i3MJZsDwa+eQ2ALd3rgM5CT6dpQPf7xnfS/JWHZOnirlkAhufEmrznkP0GhtRmRxR2O0ee+LhbcYSNHdW86PnjfEcVZFhm5aJcfSSOYQ+qRWFrDiZ9K+8kz1qKc4KhSqa5/7fq7Ui+GT9wcparrzkXWYCUOAQh9R2zCqZmVBbb/ZqohwpgJZcNAY80CG5sHrssQyHu5XmkJCv3MHKiNRcYKG+G854UAeFq8ksOaQ3q85IQzzdrb2j0p0NOJxCo9WrUNcMl9+CRp1XZUVUyAFht06BhgM46yAeOOtdunOIPDKoY45IqguDByZLNWTgPDTvjlO+LnMrAprx9ubjhVF3cSQgDat9x13ficpUFac4CDL0tL2AechH8TmtDMJIyAYRCMxBJiduG2GNu3FMUctskcx5X3k9MQz+lHIBcXBlHKz5DzK1Lz5vmrSkGEHfqIa6xCYPSO2zU4cmJDdWhUT3nApg5NdOzt00zUAU11i7NfWmIKKFknORNR1C0KCVrNpMX8pKhvKDsGWmg4v4zNgBLoYTcMF+vMtWuVx7X3Xx1GsM1L09ruoeJINWJAbWy4afeXZb3z89FcOS+oiXMcEeZUEvrZQPzjsPe2r1UvJYuZ5kZ3+Y00gOJozZX2Ay0UldWKhkm1oei1Pembg9oOF3Yg6yRVoIqh0q+aU3SQt3hcFm+wqEsFirRj4pkpIMoZIvn4ah1ObQuNJUHaHD6iFi9kAyXD7N9ORJ601Z2z7rh36qR+PFN3X16m1EI+M4j1lZQl9R2A3E56myPkbSgzZUqUj/bVoEApSLV0HTz+FDOxjGyG5KzkHHhFMZHZzC0ydKQwZDcViJ6nsGICNKwBtJVqq7AVNkHy7jxfUCXs6VKdNCtcbA+f+fslQamKXq8Hq42xyti1iT7ZCDbkH02G7d5QIruUFfVXUpo5IEb4xZ3DqHNtBX3QsV104+6X6Y5tVN3VVydiKL/3Ewe6mq6mDUdSZkx/k9dzsqszxfaD6kyHnIJSRI3c+Q9wBN59SoCu9LtKF1VKe04naOTBiSDqjX/4cK0i3v3H5LRRSCm7qbJz9khymPtvNODh39GQCatqjfoG7fjt9bmW9zpDwLkO7DET1jnDP6HcdV09wcY2kSIyl9VTdTUiW79ePLq4NymNJqpftiF0XpS03arWTZu+EkDhvKhRijSmF3K6k2wN4s4SgN2neoaSGfKLrvC7RpX+DGdXwfRVXatbrQla45FsFPpWvRMq3O+I6GpRIsU3zk6IVsmSn4wTtviiZtcpVVakTJjjqyJjdf65g3yp8mbpjnxY/ryXF7sgq8QxVwFoBJCRkpWp+9VTIwb74wdXQ8pYX0H4Epk6X66tECCfzaudnhWKmSySlegya7Qg+q+w1reaiphccw6ZjkaVvZsbalMxcZCJVUTSRo0TvR9xh9t28p/cMNql3ABs0UTfwWaBDOhAOVt6Va4kg1VnevO2lwllxiTnWzgoEVCkzMUWlXTqJ7DQjKZm7eu4fjKgMHGH/mhG8zPSr/0I/6lfv/k5Pj0HF/kNPNqCS1wQK6Y0YSvW5hMeFKTCRHvZKKWS/OhEjebSZq+MaKclvGTRy3veh77m35dyfy9JP3DSkHm9dSddupvr+5nh/SvGlR/ZWl0EYXZuLUfpB5CiyQnhuZvLKk8v/ljVQhZb/h5KrD66EyONW6RFBpCe6XXcdY6uA+8M3Luh4/4MSi9NduqFqdl/NLBsHox8ZCIfdDrbX/5TXfnxfOu+tvTeZ6ezvz01A9FfG/ERIc7/Z3tTn+n099unS055XCAjVL1ldvlDfoolPMvPX0iwmXkSlo3wCgVhCXj1nG0B+OHfkJi+KSD/8WTwZMBdPuuB8PQ9VbIKgy3ITxHh/LivnHrF5euwPxhxclBZAGAf+j+T1iUMpQ+kYyqvxtU/aWxFqckhlGQUSmjnqVBSR9FPJJlCXDrNOB40tCd3SHUob8Snl609lfg19C7QPPhKqCXrn8czVYndFnVsFeLxjms27CzRJc6VEq8edkMhmEwh62SBGQ2Gs8R1LvE9tLNwHeimWiaMd/6P5rytKVbbgAA'
      skipDos2Unix: true
    }
  }
  dependsOn: [
    vmExtension0
  ]
}

// Azure Monitor Agent: ships the GPU collector's JSON lines; signs in with the pool's user-assigned identity (mi_res_id).
resource vmExtension2 'Microsoft.Compute/virtualMachines/extensions@2025-11-01' = {
  parent: vm
  name: 'AzureMonitorLinuxAgent'
  location: location
  tags: tags
  properties: {
    publisher: 'Microsoft.Azure.Monitor'
    type: 'AzureMonitorLinuxAgent'
    typeHandlerVersion: '1.40'
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
    type: 'ApplicationHealthLinux'
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

// ---------------------------------------------------------------- GPU monitoring
// The collector (nvidia-smi once a minute while the dev box runs; the Custom Script Extension
// installs it: systemd units on Linux, scheduled tasks on Windows) writes JSON lines to
// /var/log/gpuform/gpu-*.json; the Azure Monitor Agent on the VM sends them through the data
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
  name: 'dce-dev-notebook'
  location: location
  tags: tags
  kind: 'Linux'
  properties: {
    description: 'Data collection endpoint of the GPU telemetry of dev-notebook.'
    networkAcls: {
      publicNetworkAccess: 'Enabled'
    }
  }
}

resource gpuDcr 'Microsoft.Insights/dataCollectionRules@2023-03-11' = {
  name: 'dcr-dev-notebook-gpu'
  location: location
  tags: tags
  kind: 'Linux'
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
            '/var/log/gpuform/gpu-*.json'
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
    description: 'The dev box sends GPU telemetry through dcr-dev-notebook-gpu.'
    dataCollectionRuleId: gpuDcr.id
  }
}

// The dev box vm-dev-notebook is running (its collector reported for at least 45 of the last 60 minutes) and its GPUs averaged under 10%: it costs $0.658/h while it runs (pay-as-you-go list price in westeurope). It runs from 08:00 on Monday, Tuesday, Wednesday, Thursday, Friday until 19:00 (W. Europe Standard Time): if nobody uses it then, set an earlier autoShutdown.time, a later autoShutdown.startTime, or weekends: true.
resource gpuAlertIdle 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-dev-notebook-gpu-idle'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'dev-notebook: dev box on but idle'
    description: 'The dev box vm-dev-notebook is running (its collector reported for at least 45 of the last 60 minutes) and its GPUs averaged under 10%: it costs $0.658/h while it runs (pay-as-you-go list price in westeurope). It runs from 08:00 on Monday, Tuesday, Wednesday, Thursday, Friday until 19:00 (W. Europe Standard Time): if nobody uses it then, set an earlier autoShutdown.time, a later autoShutdown.startTime, or weekends: true.'
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
      actionGroups: [
        actionGroup.id
      ]
      // e-mail subject with the measured value (preview; the common alert schema's paths)
      actionProperties: {
        'Email.Subject': 'dev-notebook: the dev box is on but its GPUs averaged \${data.alertContext.condition.allOf[0].metricValue}%, $0.658/h (\${data.essentials.monitorCondition})'
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
  name: 'alert-dev-notebook-gpu-vram'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'dev-notebook: VRAM pressure'
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
        'Email.Subject': 'dev-notebook: a GPU at \${data.alertContext.condition.allOf[0].metricValue}% of its VRAM (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// The dev box reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-dev-notebook --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.
resource gpuAlertFaults 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-dev-notebook-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'dev-notebook: GPU faults'
    description: 'The dev box reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-dev-notebook --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.'
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
        'Email.Subject': 'dev-notebook: GPU fault on a VM, \${data.alertContext.condition.allOf[0].metricValue} faulty sample(s) (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// The dev box vm-dev-notebook has been running for 45 minutes (its Azure Monitor Agent's Heartbeat rows) but wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see it. A deallocated box (nightly shutdown, or stopped by hand) writes no heartbeat and never fires. Check the gpuform-gpu collector on the VM (`systemctl status gpuform-gpu-collect.timer`; Windows: the scheduled task \gpuform\gpuform-gpu-collect), and the GpuCollector extension's status.
resource gpuAlertSilent 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-dev-notebook-gpu-telemetry-missing'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'dev-notebook: no GPU telemetry from the running dev box'
    description: 'The dev box vm-dev-notebook has been running for 45 minutes (its Azure Monitor Agent\'s Heartbeat rows) but wrote no row to GpuTelemetry_CL in the last 15 minutes: the idle, VRAM and fault alerts cannot see it. A deallocated box (nightly shutdown, or stopped by hand) writes no heartbeat and never fires. Check the gpuform-gpu collector on the VM (`systemctl status gpuform-gpu-collect.timer`; Windows: the scheduled task \\gpuform\\gpuform-gpu-collect), and the GpuCollector extension\'s status.'
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
          query: 'let Running = toscalar(Heartbeat\n| where TimeGenerated > now() - 45m and _ResourceId endswith "/virtualmachines/vm-dev-notebook"\n| summarize Beats = dcount(bin(TimeGenerated, 1m)), FirstBeat = min(TimeGenerated), LastBeat = max(TimeGenerated)\n| extend Up = iff(Beats >= 35 and FirstBeat <= now() - 40m and LastBeat >= now() - 15m, 1, 0)\n| project Up);\nGpuTelemetry_CL\n| where TimeGenerated > now() - 15m and _ResourceId endswith "/virtualmachines/vm-dev-notebook" and isnotempty(Computer)\n| summarize Reporting = dcount(Computer)\n| extend Running = toint(coalesce(Running, 0))\n| extend SilentInstances = max_of(0, Running - Reporting)'
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
        'Email.Subject': 'dev-notebook: the running dev box sends no GPU telemetry (\${data.essentials.monitorCondition})'
      }
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
  name: guid(resourceGroup().id, 'dev-notebook-gpu-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'GPU dev box dev-notebook'
    category: 'workbook'
    sourceId: workspace.id
    serializedData: '{"version":"Notebook/1.0","items":[{"type":1,"content":{"json":"## GPU dev box `vm-dev-notebook`\\nSampled once a minute by the gpuform collector (`nvidia-smi`) into `GpuTelemetry_CL` while the box runs: 08:00 to 19:00 on Monday, Tuesday, Wednesday, Thursday, Friday (W. Europe Standard Time). Idle: under 10% utilisation; VRAM alert above 90%."}},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by GpuIndex, bin(TimeGenerated, 5m)","size":0,"title":"GPU utilisation (%)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU utilisation (%)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by GpuIndex, bin(TimeGenerated, 5m)","size":0,"title":"GPU memory used (GiB)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU memory used (GiB)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now())\\n| summarize RunningHours = dcount(bin(TimeGenerated, 1m)) / 60.0 by Day = bin(TimeGenerated, 1d)\\n| extend ScheduledHours = case(toint(dayofweek(Day) / 1d) in (0, 6), 0.0, 11.00)\\n| order by Day asc","size":0,"title":"Running hours per day this month against the schedule (UTC days)","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"barchart"},"customWidth":"50","name":"Running hours per day this month against the schedule (UTC days)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now()) and Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\\n| where Utilization < 10\\n| summarize IdleVmHours = count()\\n| extend IdleCostUSD = round(IdleVmHours * 0.658, 2)","size":0,"title":"Idle GPU-hours and their cost this month","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"tiles"},"customWidth":"50","name":"Idle GPU-hours and their cost this month"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status != \\"ok\\" or XidErrors > 0 or EccUncorrected > 0\\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\\n| order by TimeGenerated desc","size":0,"title":"GPU faults and health rows","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"table"},"customWidth":"50","name":"GPU faults and health rows"},{"type":3,"content":{"version":"KqlItem/1.0","query":"alertsmanagementresources\\n| where type =~ \\"microsoft.alertsmanagement/alerts\\"\\n| where tostring(properties.essentials.alertRule) contains \\"alert-dev-notebook-\\"\\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\\n| order by FiredAt desc","size":0,"title":"Alerts fired","queryType":1,"resourceType":"microsoft.resourcegraph/resources","crossComponentResources":["value::all"],"visualization":"table"},"name":"Alerts fired"}],"isLocked":false,"fallbackResourceIds":[],"$schema":"https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"}'
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
