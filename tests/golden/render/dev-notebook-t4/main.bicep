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
      script: 'H4sIAAAAAAAC/719e3vbtpL3//oUKPv4LZnqYjtJL0p1zrq2m/o0jv3aTtquqlVoibJZS6RKUnbcbL77/mYGIEGKlJ327PY8JxZJYAgMBnPH8PPPepdh1EuvW5+rq+VqFieLvnp5+kZN4vk8mGRxotzoNpyGfiddhCqOJoHy1SKMVlmgOv9QvVs/6c3jq57uTH87T7q/p3FEj/f+XCWBOo6jkCDtXQVR5uFNfjRV2XWgrgN/nl2rIJou4zDK+N7ecjkPJ34WAsKP+vn7LIhSurFM4ssgVe7O7tfdbfxvp//N1zs7XreVBpnqBKtWGKWZP5+rzlR1Fmr76+fPVW+V0hAn/rw3Dy/NQNdG3sI71T8aWpu/HfxV3333BTD0w8nZ8fjw5IcvWp9/xp0Ij8v77DqOnhbIrOIywVyDJJiqy3vT5IXSg5a7k3m8mnZCYKytklVEt9L7NAsWU0zzc0BWyh6Mhq0Ofzk93L84PFBDWa7/9hfTEbeu/a+8kK4FsaMhdrNwESReH00D9a/zk9dqHuLXMkh4TliuuBl8LVn8iv+Ojw8OmDowucDnCfOir9NJM3B36me+mThRRbKaB22F1/0QzoO0R+A9HiDDfrlcXQTzYBFkyf14/5XK/Mt58KIZvK/eHqu76zgNeKJZHM/VzA/naVthbNk1yCS9ju9SNQvuBBkp3Y1UmKUqDf8EWftpuxn+XRJmoGFCq6b/JL5T7nnmZ6tUfTZQTnzjeEwUwFC3GdDrt0cHR3t9VezPrto7PugrLD3vVvfsZH+hvuq+f6EuY7yHVzG99pdB6rVVME+DZuBJPFkIkHgOilXhwr9Ctxcy30m8ijLQK5BPKD7dP1KXGDxwhSFENArpsAELIXbKKlMB/gI8Y1lj5h1ddBZhmobR1TvCTsocA5vkPtU4u++u7YQ0SG4DAv03OMsGostZDiY9v8e+2N3eVh8cC6jApHUMnL5y5PLe+QhiAl3SEJrBz/0UZOUvlmgYgrSSIL3mSevptvl1zptIXzsqJrzdhaBSdyPkfIpfpCoJJ9eERmAZVKJ2379XEz9JwiBlBPGTF3gQxVGHHvpRChLfsIjxaj6Vjeyn6k10E8V32NlRnKl8pJprvYqvUnUUgYYY/0sf2HcXsuGxzF2sYHcazMPbILl/waMxnI3WNZwEGH4ASk/iaAHu0FbE8YV7ADrY43KOwWNZ/FkGegp8mqng0wKGDbyM00ymy4RFY70P6C1EJcTSDG8/ev3y8PxifPj64PTk6PVFj7jOfs50zlbEaiptD/bPemkGfCzWHp1fnB3uHQP8P/1l2MEsaUkGlUZ7p0fjt4dn50fYp0Ao71esD5F9PFNgPAsMvjrA471fxt//enF4TjyHthUW8DLwE95VN0GkZsy2wLqxrYDFcIqphtm9ciuA9l8dHb6+GB8dtJW/moYBRMQ6OvbeHKDV/qEHGo0X1acXJz8dvh6/OXvFRCmCjSQNmK/PXFsvpgc2oZ7tfgv4GNxzkBqIPgGHDsFUZAXPiF939vi3S7xK7WATtNUzRVzojtgw+oCaIO1pEXkBhUWEwpUgEAB/RjKBt9JVjB+MIHoaYWNoCumqC9wQZAFmFGB5mBlh56Dn/R12WiBkjPl2VnhnmAofSaEogHyV66+ymC4CouQ31OJPaUELJ9NGM1qCBuoG8Ab6/nTqJtlC8i6cQCgFi7a1jHunoLHjw4uzo3014M6LALLLnlNM06cnb49BLka+ZZobYIFcklC8fSBGeM9Q63xzHxqmi6mXXrt/8vo1lBSibleGvVhiqFH2BUmUKNLiHDsIuPLUl9Vhn528uTiUrlniT26IaWcxJo9hGHkC5uUvgnTpT4QximrRtdj0Ebjh1XVGCC+a5svH3CzVAAHtkVtI5pdvINJx9RYqT6Fh+/CzfPPQ5tCaWT6tSBmkAzZofcqs67pMe3gQ0H0l+OdXoE2KleQdR2oM1o+IhAkd28ZsOqKvBPQV0ZYEU7cJgpuqVUp7pMCUbIhT1njVU9p60dRPACm8TPzknsUkdi4xdPXmEvrCSnQCUo+UVpT7lrpL2i6RLkiWZIY6LHYDVhKklXr9HGH4O3518nJ8cHTWLt08v9i7OCzfPjo+OB//cPTqsLj1r5Pv9S2Lxl6f/Kzco/MT9c1X2zvqzcW+V3SAhlMGCtXqmO50WyGIOMkU2FtAKrO5vprHl+b3dZYtu6yfJOYWKanmd5yaX0nePY0nN0GWX60uQeuTIM1bwiYwP+23rpI58N8NkiROKveWfpJW2yXBHytgNr+7Cqet1v9/c3j2K5iD2yIZ7xB4LO5i2Q5hu7xvU6M27Zz2qmBzxPXai2ARJ/ddEMrU/M5iWDZtYmBBAv02YfbYdgTyMgY/6U4T/64dTCYy6LS7iiZxkoAXBNPubQy6BM1qONOE9IOxlp5Oy2tpGsBo47Sr+Wf3Kshcp4ZSnLZyqpaJ47VyknkASt6O4YBaLRifswi5i5ObeQxtyAW/IBHFkiRdLYnJp9iaIG218O9F0xUxtFpcog1Y5e/xJTWQbUASp818HBs5uAKaWjnNbhhm3qY6xB5Bxzh/Ojw8HR/s/XoOILutX44O8BeLQpwYaHYT5/Xbs+O++iWcqt/c4X95oye/Yde5v02/9NC71ZoGM/CCO9fr8xLOwvfgHc3jwZZCN2oZzqSx9GMLIwA9RPm+6eY/wP+X9MPlDpjI1q+drUVna3qx9WN/67i/df6fjgfShUycBG7LVkizP8NoFg9yUPTPn8Bid5VN8oYyoMbX0/RqARTvXISTBPYhZNZ0sG3QAmy7E1jpMkMoL8VUl0BRsYW7umUbyveS9sQYHH65ygYXyQqLnkExMT/xdjwbPN32qmhbduXHJJ6iIbhLNkVL/Qs7qSW6/yRYgnuenB/S3mrbg7gQ2IfvlyFkukf6ZrC2ODB6gH8QE9bEDXICWC3cWz1Px3H2DBGzvCmsUQjK/fO3bDW/JkomITp83dsbtfEHoud8tSSuE0zphjYeFA901AVYBn8LzN0SRYRL11tHrB7mDJsuw5DsSb/156uAoa01p9HoqejdlU8nwvtkeq1KB6JgFoV8wQopOruRQUq4mKZugZTTJIRhQyrC+TLOemfB1WruJx4rovAvYH9p6bxBSyYCmVyTwAZyL+M4y9HC92XfkSXV/R3y3rVEn0OjYT+L3n5pMtmwTXMJ6dTgGPNG736rar2reBlELh4x7czKDSzk0Si6xBXdWUHFBQCeSh2Ipu5rRF2stGdtOR+ysm74GuyHj3XU9AeQVBaN3TP5W+YzDkn0fq+389W33d3nz7r6b8+sYM+saY84KxS5ktW3u72709ne7WzvOO0SWJjM2Lvp4INzrAGRIyEDL3A+tiv8K8diZby4ZLziumAgu4zgpIxgJrWBheCkcX1AUXdO3SJx5+lqsWSnXFvNvBr+7n/CuhXLI9tqspr6RuCb7ZVMwFSI2Y1JeoGZDp2C6zgjGcJCJFsKS3hyDcG2/+ZgT70VQP3f0ifucLvzbXcEucbAPCIU2iQDtS27m7mENaRF9yqJV0t3h5supBH2o4zzfTgdiwLjwm01CcZkdxbsgAQqlIEoy63TmyCJgjkZqYo7iH2RBLdhDE+aGHeQvOxpA/q//rb97BuIPcMBpM+gGGWJkq39WQymZvkMlFmXzB7XK3FavWB6vWq2FmQY+g6d32Pgx59PsjmpHZ0b/jemf2Fx8UUnijtL6P6JM8p7fkldOx0eAkkY+jvi7cqDYvSiwaXusrboJGsFGERgipvQZroz6Khwpbu1Kzoc2es5J+KmrlDznbYjPDRlgeTC+M6f3QT3A3B6jxj956rzN/9j3yg7Zr3WW/iWTs5IFXM1AROy4L0FG9YGxwamrVuwpgdroAcHbG85CXvTgGQHKXvGRtkAxDRhKPEy65HfF10xSn6BDBEAnO33O9vbuw6ZfOTt9YHPCbyWpNWyiwMQ+2r7/fZTNQ1TqEn3ZNJnCXkm4MA5A2ODaXd6doJ9//XONvAKgLtKayMwY8lknkzgqIedQJESmOkZCCHzxF9Cbogv1I8Hx0e9g1M2rmM1g6lAxgcCQnjxMxA4gghk1FLjFqnsNIX9V3vn54eCZRofTZXebRB0fgyz/OwlNRjKdgVRwsEPM0Zoly5gzpBmSTduE39RPCDTprhii0YzdXMriaerSUYGU9FuFYXg1uG0uCOmjbFs+DaL73ZrpDkM1nYMbT51wUamOc8EP2APDdbgnTx4V/HK93NvvXEm0EN5H+lmcHCx+z1nLaQDbYt6j8cgJ2JZZM526R+3pHPkdrHzxPEsNl7iRmWOVOoP6IRSHjgANGgStzUsCiILuHa9x7+FybX5JZPHvKSJJwofglMoWgW25nRL7Eemx6rfBJD9JEtpoG6FQr0yuIg45I7NsSJNCcTkxrRkLlFVQQjv6JKX/3Tv4se2UVIVcRso4whQYm8m7CiEXqqjinhArdkrAy9PzgQonlmIG6YEglVlJNSXyBWiCbs+zAzi02AJD54altbBcBu0B3THG5VNpPKatdk959nYnDIOTbMwJbHmLj1zl/hHmrrLNl38Mj75yavVKJeteluAZl1VNTD/C6Oic4SWQ2oJ2BQxQLfAVpfYQ0/3Buq7V11E3na7O50dsDmEwvmiQGiDuG5CVzfnPppDeBtU5jUqlpVxOo433B5tlO0aQq7WkF44JkbEErWEE45OTOPJij10IA2f2QjoSczZ3PDrqleIHIP+AlBRQC4O4tPpTbhcknnvz9MYzpIgaung3b26Jg/kJbl4A4nVLNJgfkuBf2f4897Za0QbRqrb7TrwTYiDcUgv+0DmmbgzScnCRHJ0TwMS54lRd2nsB3JLb24i8BAG1zV1DWACkhwKrFlrEkQDkjBo5Aw/OA8wgDUuCHRhCHowXTi+xvKb3jMM+6N8fR4wZJvYTZgaw8PFq9rKhQ8XCzENIUfrNwOaNWwH6CFj6s6afbH0OriMZYZV2qEIeXz5O3gKRxSpfRF29nhRHAitsbZlhli00UcMi7zNZhulxa6oTIFNCh58MXZttdAf4UA5+NzRxAtUBUND8+pdAdb18Iop4YoWmN9UHtGVHg5zHPt+PhQHmg1pi0Zq39LqlbwlkYnP9/IY+ywM5hxC9bUrpa+gQWEIBpWkL31wGBaw2O2CEUCFyPi3GLLuV4hM06gYtYx5X0dSXhTuFwfuF4ebQepL9ICERAP+b9eQL+4YnqsMxqvvBmfFfAOy19q7IRk57MbxvM3unbW+mKSsR+4nWgPAHh3NBWmLeQ0kvwwnNyR4nrAEK7O7WZikHNJ6xw/fKReGAZgMzLTUkwAZsa1iDUuyk+PdocS90zI+p/kVNbwxrcq7tUD8jdewShWr1WhyhgBtNhGZ6A+1rmULUQOGyDmZU7N+nOP9MWvDCS5MhWX7mbgNtsKYooouWRdtlibFGrj0BIKVGCE8ZWkKc9Ircl0k3NmjFAb8YT4kGrR40SnFRqcu5euSW5SAaRwJ9E5sLoFmqeHGqSBB1UHBHMsCMidRE31NKyhepFdkiNAbMQ3qUhbSlGOVumtOlCFcpC76gnYZenql0VeePkRGSIr+1tRRW5if9v0xTvDaD1dDZlGjvrLYXM1UbFRI7xIqhjsjjznMcCTMh7pzHOAvvYEebYZPjJJWqKSg6Sd3ZPpry57euKA3ajNesCIm/NxfXE59dYWR6TFafIJgyER5jy10CzDdj8VaaJMJLYUDyrVTJfvK09Lu1F5H+s9PeU10a7pqgiTPmuAgcgYwzLkWIBIH14RMDpiN81ga5byN2Q4kSJtaOZ5FfcBu14eaFk3L/k8airtmQfG2Xbv7crk6osDhIMdqXZM3iCoOmLsIMa2vgyCDoo8YYi2M17AXBAahTNov/ARK5JjN77puVqrGaZBMoMoOClyuiMkQnq5m78c+fA238OgLAkuP5KIO/DGHQd8gInocfm9Bhj9hnIOggOmY3QrNIC5opTbAkJVsBHJRRGD3LRBWYJaAXMdZimiFzLDyLJg2TPGUTOQD6LI/C+C1Bsz32rW3XUd7TMBnOOA9lmvvweaTFSg2ysaf2M3HngTGxn/xbY3ta24dTiZvilD2wMSQaL+uRZFwswbCAbMQ7bMWwhauojWwwhSk9JTq40qwvG7p9uFcN+CJuZZbePURU5HDueBmpvxXJHeu/QrfV+4HuIuT6TaU2g8wEz4STbCLwtz46D0oukdwOZScejJybTOUZbUOpCVTS4A8wv4wPbSIKWGM1Fj3ZvgMhlxb3Xqi0OGXsSa6lI2VVnxWeOeN7RViLDiiNjEsODqm4RWprlWzw6h+lYVqMoEqM/l36yL5gtZrIbyWJctNL69Xg/ZygzrZ9yk6gSSuwMOHdeD1sxyVxDeNACWL2Xl7tnesmN1q1qvc7xEkssQi8eumLsTqm/r9e8WpTGqzLNVC8A27m9XRwcOSU/fYp0wuhKFDCiQQedj3z/X9TxCnjCZyFlAWmbvFeHlIWhqOyegusUy+01M728++ef71Vw+KTANI1roESW5tALUuOGtlBc/PaouwfxCBRajfdYzCU+4+zbqpHYlX0+Yx0uVRUnfSJNj2RZ6pcxaD6mXiL6/DCTzBcLlRih5DV+7PPOIGGHsiSj+18+Mk5aOEobAHIUx5rP63pR2ZMpagC94vecyFsDuxjE0K9YHm2RFaPu7R5QwrokQ+w/FFyilX7ORLe/i1zyFNymZWoJXsPhd8cTSmgxaDIhpUjtTpyC31IVZLfEVGmoMX9CrzkoFjcj7oBMbAii0Y21I/Jw2a4oDmrpE03G/Nzl2HZqSDUyDagMwfbYaJB3r63+WIr3VeDNeWvp7B5qiqJ/Gc09YTJP0nh3YGZKWYAytOfUt9GmTwA9zdDcCORTUaOFtT8jPhX01AafWcjYtAjbH8QVu54M1iOYxBHnPPqX3JlnIFiRbx1mzS0p3CJf15nnQ88aP8XTxGKHSBpHMpd+av5nDc+wjmZl5b5xkv/ZCTx+EfC+4oB8okQFnQU6IIyRKWsyXXUNgpLMUUIWeF1hWSR8jShmV+YInN8toHkmrW16wtJ+21Gpe1YdF0uE6xnqK2Ugq89VlO0pkywQXFh9gV7D5EGzXLvqWsSNIDi18gN1eIZZdaO7/Yc8SAjGI/KLvwBOFiCVgLbBBwmchpCxm7zBKUobPJpwHpSEE0AQQ/TyhnH+s0DsR1ufCzyXWFfMTk8fSBqxzDckiEE/stciUgnLagmFyJTDWVFg5ZxPwu6aBBAyczmjbhocb9SjmvBkKjw9WnV+OfsUFj2aDSeDRw1kwH9FwPZcu6aPbKL6jw2HxbYMzr3c1InK30RY7FPkiT9HlXnlIwwSymHIcE+oBMx54MNdK3tWAqva9MPrXzLujHQnX//5wDMCq/hItSTlA4bMjzuMX0iWI6griBNTSwfcMbLKRupWV8AuUcBx/2n29vjzbvVs2iaOlyWUppToQ0r1ZqWj3yF+cshvYJLzln+xeQLO6hV3WzaLZf8gD7cmoFVG7IMYuskEB3taR07fKK1wlmtlb1UGTZ4pvKkpnlYgYjTcsNzIKtPSwpjTRCkyvNeV11OqNOeaskCp6UgxXVnOo6XdLohu/DKZBGiYgmI64+KbHRg2JnUbI/HkZjck+UPXBA/XwuhO/TiQI/G0zS23YUS9IqflBEMjWRkrIRXmTiWY4UqONoUU7wLMXC+MA55ZysspJHosyxZvSaSR5foo5s6FNjk/nQdrxRlXMSOc84HrWzU5MNVI2um0nVGvDNbIf+qzfkS9zH5KHPKPbR2JYN+9lwd9TYgg352fBpQ4sa85xio7Phs6a3lk1yafx8c+Pc7pbWXzW1LpnW0vbrpraWuSstv2lqWTEmC8R+29SjMI14BzW1EXMp31717cpWKlZzu2ElbGOUtsBm+2KNUT1O9Sypn85Dar5nbdXPKGkWO4lVd1D93/Aaakbw9x1em3X0gnfZQtpM5e+J6Yco5DHUkYv6OtepVWKl6jx9jNxnAUz8jM/k1srgXHqWV5NXaOgIEp0RiWhbZFbbmZoG1JBxVW2gZymQrFk1aRb5oKvS3nK/FOerIoxpTCfZKul5fHQusw/gpXwOXB+mc4vjnvaROq84mmQyYylb7YEMvRxWXQIeJVxQDKCagfcpJ1caMpMiSdz4R/l8gj4kIee/3UK1kJRTsysccyiNTjfR6T2TF7CgtMuMRjnjE3e1R+3E8ZR2F/5NMA2hS+QHb0GraTaOb5j9rLezDiTVtKSzMoQuPjfVMvufkghyVDh0SO1lEHEu3hRxIDmHWjzfl9M1CT1iVyY5A6/jlNOtXYvfO28XRwSAXqqjZ3SDE1etVubUVqnl0tzk1qyk6+NcFidxDjXuwa5SdM+XomhxJgT8LzqJ2a+QszT7WBztYFVt0wkvsBp9diLn2zrPWNvqlp2ueXCT87LGNNM9Hqm9cjdOcaoMOKcU5ipb+kgaNn6Z5rYWW1OTd1DsNAJDIdu1g0cbeNmsy0dr3fxcUurSsUf4pcY3wX2qz1WmMPP5mEE6IN0QL+lTFBUG3m/mwJyuXsL289wtsb7S64sUG3bLfuDj0jmlIqSuu/WLSi6OtCYaAADIgoL/6kNpi+WmlRdAjMoumjpVvGX84vXzWsVZLRlAfloLbzInW7nvY97seFWy+2yN7OpOITWeJDMrV8eNlOFGdCrfvFmqTtTVlZHyCFLk447tAJIFaTCfSUkIn+pLFf6gRVFLx3uhfA1c10pYLVmeWOVJ6iqIcGDWck3dBLqAhlqZOjiCLR6oa0/ALg3yRaqkjoNO54JHjIZBcSIMYB5fXdHG05BL5ZA0GWLiY+mrg+5MhuZ1UgpF6jlxxariNDhlZF8ZiTNZZfGMzCo3Ux1VOgs9DeaZjwgttlLe2fNqNnNuslMqd/P5kTKDeGJIy073vbf2AvEgZu2A6iE2vrM7Kp0P8O8rwXLq/p2eUJnemOgX8a3AsiXtNoEy+18qz/x7jn5VaHXv9Kil6+b8dPirHFAy1YaIJx3s87EsqRxEv6zyQHypa4nQ77x2CF3kFYG4MIGfUSZPxvnacNvDE4p3P9v9tvf8/fse+aS5rEs7L8o3j3mE6s4Ps0p1Gfhm41UChUprVlQrxC4kV9TlySvyQN1oLrzjtfYuLg6PTy9o8s9aNO6f944uqDbBNmDTYGXYVAjPlD/CpiBPKB2c5INntMTTxA+peAiFAH0qzMbD8xji/t6rVwT/6XZ+5pvmBz09moVXRpPk/MibfvMRaVko8oPciB6QZ+taa/jRdlWS4Jh0Of8WEl4Uh//4D4eTEIbFSlPOCq5ptUfNWiBa5OVlWLt+YKBFYx6tGZc1AAuc5ZSpvqZOGUajgsRGWuUt3/yko/jW9cRotCx17SPMT7etjCIjwPSBaUo4n96DeWs5vM3nSfJYlSlctEG1f8whav237ii1sVa6ZmBJNx9aom0BGyN2mZbujxcXp4yd+hoMVJ2DajwEBcigBmStVVEPcZvyKU1NB1ARn0AxdQy44JE7scs7bK6B9Jg6BnSgU+LOd1QRzqzDH6wxJUEKrjIhrQlElHO1Ub6Zmoj1j6EzmYeUlxdOmQ7LDbVIJF3K+X/sDXD+aYi/4JcjbYL/U2eWPaoGQAXCl/yaL0uVdoiGNGr/8Nobj/a3CptelnosBE0zWtsHO9v5ZqbGpO3vbm9vOHlZraMATZ42y9CR43JjXl3KsXWc6tEjtyCltvopuNe/Lu6Xa1arWAD6YLi1uTk1FS/oKyJzsv11GElmSkMZ9jGBUVefhHJW2azzDXEtrZM6niFNkkhjroCme+cbQsu4gmjPuTgLVaQUOabPnvkRq3qmfb9UZY55BuuHzC/4RGSjQyDxNd/TYxAmbIHTlqJT3qQ2QnM0ttVeBp3tEhJ0zRng22f8TSUCKE5GVrapCTm6fDvEyMIctwpvwa568iRHkznuAnFKmVlYIM1BCw5Lt4pcTQJJpNjOteA6HSLHFEhfIkq1RRNx2xRJ3EpLhTE0adjbrBCT3UScKU6PEgJLW+2PVQzLwQhRy6Cvb6U1qlEjGFvRMuBKKiJhboy+Lv5v489CbN3jTeg9PTm/EIWGD1ZS+0diWzyy1mEjvcxsovpQdlyjZXmPrHXCw6alG8gwFuRUmQ4cGqNj8bJyTZS9FVolOrxA3O17qUJJOhPhoNx6HwEWsO4O7QJq7BcV+nr65Hup/fvOIu0Iu+/o8XZC8QklLp0K6NI/z1w788s6vFFlGLLFCwZbOh9FtVa/Gwh//Q6K43YtRxVfgsU19ULUMjp54bD/9CFWZw2D3w+zGksvh8dlPPAHF5eflWJq1ujElU1jskEa0vhS7QCSoYsyACnCNQ+Cpfswxy1tC+udeiPAIIUG5k5gNdglC1xxBQR0bns2SwOqdR3fiU4tB3qpbs48yAIJAkrZSzZGGFKbrVgYA+wl46N5xXE7tnLzBO1PMzy1Q2SVlROIzfE9ht2vJrCtWad0VV5JHrXICIKh07u5/3f66VCejB445cuZ4hw3LUAKDkFI256dsVPzVpYF2zUeGu1sSy4bnDNpENy4/O5y0AisTs5OJVm5hxW/rSm2oE0kjtGSt4Yz3y/Z/davj6FCYNysPaG3fzng0AeBWs+cXdOGcvMfMWUdydXpDYDVtrUkBuitg3zgWHbtwun9gZfqjXFJ2UswC8VLMw8XoaW8nHEhzJk4YaUSeVEKWPt9CGFA7Tvu+k5d3mdBmm8Bht6WYuQDTtjfbW1wnFLUglBoO00pyNzgJ80tBvKY7thkzu+VWt306i8pXiGTK+Pons87c+vS/aZxG4oBxN16iGvbhEGZFbZyBmVgA33A1Yy5AGYPzXYXuLZuqT0lawWkX1gsSmkeJ3vTU+RqSklFzqR8L2nfS4r0kQQqCruxVlnyT+Ta/npGrLHnch/05ppwDNeuCtdUM4og1bEBPbPBXy3KlvfPz3BwlKEiJWwfSplQS/NlteqOXfTGZtV7LV3NM9sXzyGvB4Jcbc4G6huhrnUzUkycj0Va8k3dGtDrTBISIlxGCOp4751xzpYDLLrexGW53ESZLVRcKhXOSIdmSMHPfVzrfGidaWqz0trpQ9rqBWe4fHjbl92oN22t96xbE60ajh/f1BUK3IxCwPceMbeCukTa9dXlsLMzQoCFFldEpLm3o70LWkTqV1MV/oGMxrMiMbKzEB3icMsnR1uMytIQbZHdViJ6HsGQCNLSBtL7VNf21JESx/r6QZ+iA6lmHVThDtrnbxxpM8AMRY/Wfd32+/6tDm/7iwum7LaObbS45HXu9y5Kg7MDm+uT0y8u+d3s7PZ07fFyOfAvUrv6uXJrh0HmTQfLABXlDA5TlSKuqW6pRk9LXj8+fP328NXJKdXbdY654ms8y+oqiXePpVyA6fj93vnh+OJX3ZOfHZDDx5whWS7DivdZ5zHIqCkKFGQQZ1eplaFgnBPkfitCTRIuwrz4bFVRs7skUDb5tXkZ6rza+fp8gk/bWsUNruwlHXU0p1OWJkVvgJXdkfcva8CZZi8k6xrNuVCGZ5zjRxgq+wAZusyRSsglXJ6IcQIHlqlUZVU5LLviK/0rFe1rumu8FCMgjPR7PceUCSrB3+DfDzfVUS6Xl7dc+jX++pKbn8pO0obGjzo3u1XBW9JwcnI8rn4VwF1KwqBXfB9g/dMARc2nvIAvWHkp/Qt2znoWYjWqbmt92oDRIXKP0xuoFH7lLKxuVgPbq9SXYeClUpAp1YfBQD3VY0VYfoczGX0120Z26Zh4C8k73gwm0lrK47WZENT5dUb1gpK830Xpu77U5Av4JAKEUprFi47unn+koDj9rGukFqklXN6gryqMy8o9KWUlFLdD2hP9gnrtHv4VpSh8cPywy0X6u0k8D440uhsSbqwqtY72cVecRGQja5dPlVu211seaBh01h1/d/PSLDS04Qczb1KURGSQqDdlkpJ4Bd1fL8+u93Fkje6jSbiRJW0KnBflnCnyyJ9SkEinfBjD3iAvTNSJw56SOsnRJ7igCTy4G/FpHc8v8eeSQHisus/zIhdedQvnaRncYDOQNR36QyFoK9EYILbgNP0K4ykJ5X4lPPLR26hAFxqkVvvudLJEWWGu0Vw3bcRPUGPLKiz7bRsdz6QF9hyJ2IpuMlrTeGs03Qd0N/p8lbWOmnEUOlxJATal2UtqnKZjyVqwtAqXnZF5VJK+/6RPDmgjL4/eWV+g4jjq3HjdnmuSTz+pdmFz2lBdGeI6k5L+8zMpGND0hYB0KJxt9L/1lQA21fhjXAM6dQk7UnUwKk8+SDGWbwBAExI3calmusgjk/8lDj8GVeuuhcu5XXwz7CGbuojG1ZU8/5wd2HnCBa90/+FPoElCVPXrX9aXvVpr4y2+RwYC5Pqq6kfMcw5/sfXNk+73YOVEiDq+oJvooRPdTuPxy8MLl1K0bHcBu5yNX8PQ9gaOsOFzbAzlY83up3d2mf9jbZZxlAbs6q5rIM5vtxy6aNeELh7T+VUQXWXX+tMKpHQwA/EqXYueaXXMd2Tkanaig08GnbAFx9reY5y21RM/uUqrtKLVGR/bFY9NVTeKf1D0g8bEt+nimRQNxCVMZ1bBdFaQle5nUkN1YJQb7448c9ZGYP0DwLWJafqZtFUB/3RU7fC0lCTvlMrrSldojbqWdu3eakqP9uwzcvI2zOzp2lSZiq2JClUTSVo0TvR9zj9d18k/Fui0S7iAKmqIvwJNwIwpSn1bqjhcktfVse6ujVV2iTXY8YYdtExocJYDouoZ0D0HBWeyF29dqnE5qv7GD5TSp3TOS18pVf+tv914enJ2gQsZZp6JaxgOyBUjGnMpr/GYBzUeE/GOx3q6NB46PuEySdMVI8prWZ9rbU2uF/F005dh7W+9mo/CBtmkp+sl67+9uk+m6nyXtS/EDt9EYTZqHQTpBIoE8YmB/X1YnUNqf2gXSuOGT+tiqw/P5V2jFnGhAaRXeh1nrcP3weScgjGDR3zI1izNjs7zbp2vOCXkEDjUx2p2yrj7JGzwB2T/Ii4kCCiKByZL5wCSUesk2odeQp8ZGzzp4H/qSf9JH2J3bwIfmz+5Pw8mgx3wteGR1GsetX72qfL59/ecvJWkXaAGYvkvTErrMH9xhaufI61+wLjFKSODKMjoBIsZpbXIn7SuspsIcOss4NDcwJ/fIWpkLglPz1sH99hK4eQNmg/uA3roT0+i+f0p1Sgd9GrRuIB9GnZW6FKHSsHbJIODyg8WUCOSgDQ66z7io5dYXvogxJ1qJppmzLf+BzJe6OayegAA'
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

@description('URI of the Key Vault.')
output vaultUri string = vault.properties.vaultUri

@description('Resource id of the Log Analytics workspace.')
output logAnalyticsWorkspaceId string = workspace.id

@description('Resource id of the GPU workbook (open it in the portal: Monitor > Workbooks).')
output gpuWorkbookId string = gpuWorkbook.id
