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
      script: 'H4sIAAAAAAAC/71cbXfbtpL+rl+BMsenZCpRspM0rVJ1j2u7qW/r2Gs7abuqVqVJyGYtkbokZUfNzX/fZwYA30TKTnvvpqcWX4ABMDN45gUAn3zWvwqjfnrTeSKul6tZnCyG4vXZW+HH87n0szgRdnQXBqHXSxehiCNfCk8swmiVSdH7VvTvvKQ/j6/7ujL99p66f6RxRK/3/1wlUpzEUUiU9q9llDloyYsCkd1IcSO9eXYjZBQs4zDK+Nn+cjkPfS8LQeEH/f59JqOUHiyT+Eqmwt7de+kO8N/u8KuXu7uO20llJnpy1QmjNPPmc9ELRG8hBi9fvBD9VUpd9L15fx5emY5u9LyDNsW3LaXNbw+/4ptvPgeHvj89P5kenX7/eefJZ1yJ+LhcZzdx9KxgZp2XCcYqExmIq7Up8kroTqun/jxeBb0QHOuKZBXRo3SdZnIRYJhPQFmIcmc0bXH0y9nRweXRoRgrcf3LWwQTLt34rypIu0Sxpym6WbiQiTNEUSn+cXH6RsxDXC1lwmOCuOJ28o1q8Sv+nZwcHrJ2YHDS4wGz0Df1pJ24HXiZZwZOWpGs5rIr0Nz34VymfSLvcAeZ9uvl6lLO5UJmyXp68JPIvKu5fNVO3hPvTsT9TZxKHmgWx3Mx88J52hXoW3YDNUlv4vtUzOS9YkZKTyMRZqlIwz+h1l7abad/n4QZdJjYqvU/ie+FfZF52SoVn42EFd9aDisFOOS2E3rz7vjweH8oivnpiv2Tw6GA6Hm22uenBwvxpfv+lbiK0Q5LMb3xljJ1ukLOU9lOPIn9hSISz6GxIlx416j2So3Xj1dRBn0F84nFZwfH4gqdB6/QhYh6oSps4UKImbLKhMQvyDOXNWd+p5veIkzTMLr+nbiTMmJgkqxTzbO1uzETUpncSSL9N5Bli9LlkINBz9eYF3uDgfhglYgqmiRHaQ2FpW7X1kcoE/SSutBOfu6lUCtvsUTBEKqVyPSGB62H2xUvBs+E9TbS95aIiW/3YSoVKpwx8ohnxKUo8JIA0/Uq8ZI1d1fY8k7i+u0V5LZSsiE1FRqwhiXYIdQh9YQ+E+KII+hXEkcLzElhQz5Z6rCJYADE7/Sn09fTw+PzbuXhxeX+5VH18fHJ4cX0++OfjopH/zj9Tj9CQ+bhm9OfhX18cSq++nKwK95eHjhFBWhalShU/ISeuJ1wsYyTTAAcJEGXub+ex1fm+ibLli7rSWIeEViY6zg1V0lePY39W5nld6srKIov07wksNlcrpI5eO4m8p8rcKnT+e+3R+e/ipGwOyRhizoF4SyW3RA24H13tQqDbuQtZHeVhfPwT9YhF5rcXchFnKzdVSoDc53FsBBdWAHgL3AikVzQUpSXMYDIDRLvvit935VJEiepu4r8OEkAkTJw7+I5yM+lphMkIVgwxf+k+1bH6WgZordx6kolcfdaZrbVIGmrK6w6wltOJxf5A1TyckwH2lai8URcYqbex8ntPIZ5sIG490Bc0l4wH4O/g8anpJpi4a0VYvDkjlaLK5SJZ+KP+IoKKDXGHIFpIKwFCshrsKmT69yWbuZl6l3sE3X088ejo7Pp4f6vFyCy1/nl+BC/EIofL5Zgs51Yb96dnwzFL2EgfrPH/+tMnv6GWWP/FnzhoHanE8iZiOJ72xmyCGfhe6Bpe38wJVCNSoYzVVjVY6SW0Ico13s3v0izZEkXNlfAQHZ+7e0sejvB5c4Pw52T4c7F/1gO1HU593xpd8pwlP0ZRrN4lJOiP3+Ci+4q8/OCqkOtzdPwGgkUbS5CP4Gd9eMoGA0MW8Bt24e3o0YIo10MdQkWFVPQ1SW7wveWNCemMCjLVTa6TFYQegZwN5doHe9GzwZOnW1LV134cYCCQIcsQEl9hZnE5eV7Xy6BfqcXRzS3uuVOXCraR++XIfw6RwBU5YZwYDzAfygTZGLLXAFWC/tOj9OyrH2jxLMkXpSs+uepOLh4x97HG9Jk6KEYv+nvT7r4iTNxsVoS/siAHryNbsH4SHBHJy7IMvk7cO6ONCJc2s4mY3U3Z5h0GbpUHvQ7b76STG2jOPVGD0XPrnw4EdpTw+vUKpAGR2Tj+IacEKpsR4Yp4SJI7YIpZ0kYY5LDgl0s46x/Lq9Xcy9x2DbCT8P8Ym4RBLAbTX4tXD2PfUSC+tCXpCD+DSYYOa9XcZzlbOHnat4tvezG/QPOgl0yXRb1hv1VPf3SxN8yTXMLZzXwGONG7WGn7gWJeCkjG69Yd2bVAiXmUS9cQkV7VmhxQYCH0kSirfqGUheSdkpTzoOta+q+JvvhY5M2/RNMqppD91z9VnHGIos87Pd3v/za3Xvx3NW/fSPBvpFpn5AVocp/ecuwp+3WaG+wt9sb7PUGu1a3QhZOEuZuOvpgnWhC5JBlwALrY7eGXzkXa/3FLfMV9wWA7DGDkyqDWdVGJQYnrfKBRt1bTULiysFqseTgpitmTgO+e58gt0I8alr5q8AzBt9Mr8QHqBDYTcl6AUzHVoE61kR1YaEsWyq9xL+BYTt4e7gv3ilCw9/Sp/Z40PvancCuMTGHFIUmyUgM1OxmlCh1aeFeJ/Fqae9y0YUqhPmo+vk+DKbKgbHh/vtyOoM9LeCADCqcgQihVqhij1uZRHJO0Z/gCvxwmci7MEZEolxqWF6OWMD+l193n38Fs2cQQNUZFb2saHJpfhadaRCfoTJzKaq1nQrSaoFpeTVMLdgw1B1bf8Tgjzf3szm5Hb1b/hvTXwQYfNOL4t4SvntiTfKaX1DVXo+7QBaGfic8XblTzF4UuNJVNoROtlYRgwlM8RDejDuDj4qUhN0o0fGkLM85KTdVhZtudS2FoSkbJBtpmfzdrVyPgPQOAf0T0fub/zjG5ADX6bw7enN4ek6umK0VmJiFKBgwrAOGLaCtS7CnB2++j0C2v/TDfiDJdpCzZ2KMLURMEaYSL7M+xc+oil5yA6qLIGAN3u8OBnsWhWwUNXvgp4/oj7xaOK8eBTZDMXiPaC8IU7hJyAjFUZZQtgP5o3MAG0Kzs/NTzPuXuwPwFQT3hPZGEDBTes33kfBAnEAZp2MgKBQhQ+jO2RCE75+LHw5PjvuHZ8JbBWEsZggVKPhAYg0NP4eCIxkTwbOgwh1y2WkIBz/tX1wcKS5T/2io1LZh0MXJ8XT//DUVGKvpCqVEogRhjNJdukE4Q54lPbhLvEXxgkKb4o4jGg3q5lESBys/o4CpKLeKQqB1GBRPVGhjIht+zOa725lohIFsp/DmUxswEuSYCTzgzAZk8Lt68XstuzHMsx4md0EvVXvkm3nRmtMYObSQDzRQ7j1eQ50IsigcdemPXfE58rjWemo5JRivoFEVkSr1QZ1Yyh0HgRZP4q4BomCywGvbeXwrrK7tjfiPaaQNExUORdDYlSx7TncEP2p47Pr5oOwlWUodtWsa6lTJRYSQu2XEirQmEMhNSWQ2aVWhCL/TLYv/bP/yh65xUgWhDZxxJHoxNxPO6MIv1dlZvKDSnFWJYpGDAOWFC3PDmkC06kBCdUldYZow68PMMD6VS0d8IcYVORi0QXlQt5xJNUSqyqwreHRlbgbMQ1MsTMms2UvHPCX8SFN72aWbX6anPzqNHuWy0xwL0KjrrgbGf2lcdM50c2oyAUwRANoFt1yCh76uDda71y4ymHvubm8XMIclBb4pGNpirtvY5ebooxHC2eIyb2ixkozVs5zxYLLVtmsKuVtDfuGUgIgtaoUnnJUNYn/FGTaohscwAn1S4Wwe+LniJ2TgoX8SWiQpxUE4nd6GyyWF9948jZEskVFHJ0HX4ga5W4EsIKWwKEktF6mc39ECijX+ef/8zfGb1xPhuq6F3IRKEI6psQ8UnmHIkjWVBpKzO5BkzhPj7lLfD9UjPblJwUMEXDdUVSIEJDskS6PWKogCZGFQyBp/sB4AgA0UBLvQBd0ZF4mvqbqmdsbhcJLL54FAtg1uwtQEHjaa6gp7HqYQRBDCjjZPBhRrmQ7wQ6ZUnT37QvQ6SQ8xIyrt0UpDfPUHMAV2xhNUvkjfOywUC0ZrqmOZMYQ2+YhugbeJmUZpMStqQ+CQgjtf9F1HLfSjECgnnyeaWEB1MtQ1pzkVULofX7MmXJOAuaVqj651dxhxys/zrljwbMhbNFb7jqRXyZZEZp2jn69VzEIJhcd89nQqZSjgQaELhpXkL32wmBa46LoAArgQGV+rQNb+Ehl+6hWzljnvUdYGntWrIv1iIf1icTFY/ewGL9lItPD/boP5Kh3DY1WdcZqrIVkx38LsjfJ2SEEOp3EcZ3t6Z6MuBqnkkeeJNghwRkejIE0xp0Xll6F/S4bnKVuwKtzNwgS6TW4Wv/xd2AgMADII01JHLa8RbBUyrNhOqkM6xXWr/AzyOyp4a0pVZ2vB+FunRUq1qNV4ckYByzDBeSyaJVS6ERaiFg5RcjLXZv065/tjZMMLhayF1fiZ0AZTYUqrZjZFF122JoUMbHoDw0pAiExZmiKcdIo1Q1omDf0+ms7wwzikPGiVRaelSr0EnMsljyhB0yQSqE1MLkWt5IabpAI/R+EcHKsGMldRXVCnCwsWL9JrCkSoRQyDqlSNNK1Vp/ZGEmWMFKmNutBdpp5ea/ZVhw+TEZKjvxNYYgfj07k/5gma/XA9ZoiaDEUJ5hqGUmaFql1hxXh34jDCjCcKfKg6rwP8pRbo1Xb6BJQkoYqDpt/cU+ivI3tqcUEt6jBecUWF8HNvcRV44ho9030s4QTRUAPlObbQJQC6HwtZ6JAJJRUCqnurrva1t5XZqbOO9M9LWSa6NN21UVLv2uhg5QxkGLkWUBIL98RMXjCb5mtptHdgynEgUdpWynJK2gfuuh7ctCio5j+pK/ZGBMXTduPp6+XqmBYORzlXm4q8xariiNFFKdOmHBQzaPURXWyk8QbxgqJBLFPlF14CJ3LK4XdTtbfFGuaZTHy4sqOClysCGeLT9ez91EOu4Q4ZfcXAyit100T+hJdB32JF9CT8rkQZ+YRpToIWTKecVmgncUmS2kJDSbKVyGWxAntQIlFamCUiN3GWYrVCjbD2TgYtQzyjEPkQvuzPivBGAca9buNj29IZE+AML1hP1b3zYHF/BY2NsuknVvMwJ8Gx6V9srbV8w6Mj339bLGWPzBoSzdeNVSQ8bKBwyBCic9ZKsRWqaA+sCAVpg0/9dW2xvEl0B0iuG/IErtUSTvOKqbLDueFmUP4rljv3fhXuC/sD0sVJMIBT+wFhwkfSCU5RmAcfnQdN9wQph0pST/VcxwxVW60X0pKgZEAeEX+YGtrEVDhGbqx9O36OQK4r7hzl0OHKRBMurPMireWs0OZtOSvEXLCU28S0kOgIwmtyXethh3H9aoJqC4FqI/l3+yK5QJu9EJZlJXLT4nUa2F4t0GT7PsUnUBtXkOGDHFh+pUQl4aYxoBQxW+/O908Ew62GXmF/h0WiklkkvG6rQlDfVu/fa07VoLbbUm0E33K6WRwfPmw5dY0D2omFZeiQFhJIPcrPL/TzTzCnzCZKFqwobbbDfHnIWhrEZHZXIJOf9MXu4PlXL15++aDJNISUrCuU1KMtpDYNZ6Ot4PGVymLZX0aACPGHXqNwhH1Ao24rR+bVlHmMdXmU1fXbDNuBsmfigs2geJ14y5vQRyYYKTfaYsfUhf0z97iFxr4ypZ9a+XGW8lHGUMGDUkz1WvynrR2FMiVDJ98vuc+FsTstBZu01Aed50RoddusyzusSBN5L+znKW+54iRf2sfVAS9p0sZRAV3J1rnhi6MpbVgdFatB1ZU6vXJLdQhqCVdUT3Pyir3CNDKyzJ4P2sk6Kq0tmNhSvycPmtYBzVNjabjeRpy7Sc1YB6tgtCGZv9pOEy/08L/JGd+YvBhviL4ZYHNWNat4jrTNCkn/1ObnEUUpZuOv1VxS76odfY90dwuxE+UajaydgPJM+KsVKK3vV7axUGMif+hWbnizWO1Op4y5YzU2siNsxcSS8jZM0sqTIiX9hBwLThv6XpS3xX2EQyfVdi5hz7zVHIl7D4u5GRCPnBG89GijmbCRH5P3tAfKbIAqUU9JI9Qu3/t4hZzoDRx2WpZijVB7rjcdkkfY0hYxPyBiI97yxu4G+RrZ8qa9TqtYW4Sml+sE+yliJ6WFtyHbSdqbr3hB60OcCrYf0o0Gse+I0krSA8IvmJs7xGqWlmZ+MecIgIxjP6qm8BTDVSRQErBhwFUS38rI7IVRo4Rm6N3ggSQfSUY+KHj5hnDOsQaxVKnLhZdhLaaqPirkcfTG9ZzDKZySOWtrWlJXIsLbFgSrK6mp1tIiIYs1vytYtTYkM5428aEh/Up7Xg2F1oSrR03jz9SwsRpQaT4aOhuhA2puLmUruWh45QZqGJtPC/R5s7rpibWTvsq5OIRqkj9vq7e0mGCEqY6VgH1gplUeDBXSj7VhqrRXVZ/GcRf6U2L18P8dAZiVXyBFSQdqJOIaCuS53yr0iWI6yrEFGlpg32BDiak7aZWfYDmvg4+HLwaDyfbZqiGKRJfbUtrmRExzGq1mqUbecA4xNE9Y5Lzbv6BUQg8t1e2mudzIA/BlNRqoPJBjiKypgLta0nbtqsSbDDNHq7orSmzxbU1kRlwMMKpotYAR2MbLitNIPTR7pXlfV5PPqLe81TYKnlYXK+p7qpt8SeMbvg8DMI02Ipodcc2bElszKOVdlJyPR9CYrEmzRxa0n8+F8HM6UeBlIz+960ax2rSKC1qRTM1KSTUIL3bilRIpcMdRorrBs7IWxgf3aM/JKqtkJKqINaNm/Hx9iSpyoE+Fzc6HruVM6shJ6jzj9ajd3YbdQPXVdTOoxgC+HXboX3MgX0Efsw99RmsfrWU5sJ+N9yatJTiQn42ftZRoCM9pbXQ2ft7WajUkV4VfbC+cx92q9JdtpSuhtSr7sq1sKdxVJb9qK1kLJgvGft1WowiNeAa1lVHhUj69mstVo1RIc9AiiXIwSlNge3yxAVSPcz0r7qf1kJvvlKbqZ7RpFjOJXXdo/d/IGmog+PsJr+0+eoFdZSNthvL3zPRDGvIY7chNfVPqtHRUvZ48fYzdZwNMeEbMbjb0ufWsSpMlNLYUE60JmeiyyayXM2dDqSDzql5Aj1JRKo2qzbPIO1239qX0S3G+KkKfpnSSrbY9j4/OZeUDeCkduTWH6eziuGb5SJ1THE0yO2Npt9oDO/RyWk0b8GjDBa0B1HfgfcrJlZadSZHauPFt9XyCPiShzpTbhWuhtpyaWWGZQ2l0uolO75l9AQvadplRL2d84q7xqJ1KPKXuwruVQQhfIj84C11Ns2l8y/CzWa50IKmhJJ2VIXbxuamOmf+0iSBnhUWH1F7LiPfiBVgHUudQi/cH6nRNQq84lUnJwJs45e3WdgnvrXeLYyJAjerVM3rAG1dLpcyprUrJpXnIpdlJ18e5SkhiHWneA65SVM9FUZQ4Vwr8DzqJOaypsyr2sTjawa7athNegBp9diLHbb3PWMfqpThdY3Bb8rIhNNM1Hum9cjXe4lTrcK4pjCo7+kgaJn5V53YWO4HZd1DMNCJDS7YbB4+2YNnM5aO1dn4uKbXp2CPyUtNbuU71ucoUYT4fM0hH5BuikSGtoiLA+80cmNPn1Tl+ntsV6Ks0X2yx4bTsBz4unWsqltR1tWFxIt5SpUkHQAC2oMBffShtsdwmeUWIWemiqFXnW8YNb57XKs5qqQ7kp7XQkjnZynUf07Ll1NXusw21azqF1HqSzEiuCY2EQSM6VW9afsKI79E3N3Ruh/KK7H68EtQUYkv+BAR/5KI4+Eybj68NuPqrLJ5RBGFnoicqx34DOc88LEZCa/LKjtOgt3l0SruW249KVOfCU8PF8s7WdUnsNN0YxUDVwTLw7t6kshXeW9fWhan6N3pAVdayfBfxnaJVNioDImVUna3KrjYp6mHJzto/XF6eCaM5SYjkm45B6RnWrvLzrKVvQryil8Axb0b7fV/o77akn7QLvl0Bmw60VQ40lk4jeplaem47a56O1cyd/KfOm7OS8OcxRpS/hxGGwnnwntXOHXWaHJYAMnw2GFRO3yozZJBESZtJNa5+7A0G3eIrHg85Hl3xo1y3Hp7VJF8MnnXLH/GAjvBhGvEDuoIkv136QIX7HRSXdEUfnNVFNHVSrSCevj66tFM5n5X3VfBBdtYlcMioX/76Kg7WRrYK17d8w4SpfHRcycfjS1SoTfQTqVywbxlHqeRjfk0FVFoDS6VIBABiepfrJe+D8opG+6UD1tsr/ySj6+xGn6Mnn5eG4zi1qkXNtN7newI0jZBct5Ozcx5fT/WuGuZpVzz1kuu0Lk41rRceZhRemy28UK898c2Igwd+TDfP1Q5x3CIbwe6EdjBL2G78AO3wcuG9iWMSK4rWtyCuUcXUMz6KIv9sUq/wrBIRWZWzVKoqEFYfnGxU/zZf2CknRFVrGNmzjaGyFpcGqrSaVLKk46TfF3xp21b+hR2rW+EF4guj/DVqisyUjsPcVY6XGVhu7OveRl/VLLEePYngyaJ/Cq832uTTLajPTQ0GZcFhoV1/VkKroNr+ONz6RS/6ZspF5bNe4l/6Y0dnp+eXuFH9y10ug19QVXRlyns2p1Me6HRKijud6qFSfyhOtlmd6Y6Z5HRK3zfr+DeLONj2KbXyx9HMV9Rk5vf1wTj922/6xpj+QMPGJ9XGb5EDnXQOZeoj7iOMGJU/qKY/lFT+Mh2WbLd8iw7TfHyh2pp0CIFGMC6IpbPO0XvpX9CmsdEjvvxmRLOrHfrOxYqPyh2Bhzp/slvl3Sdxg7+49hd5oY5vKb8Ag6WAL5l0TqMDuA30PajR0x7+E0+HT4ewivu+v0o8f30h/dEuMG18rA7mTTo/e3TE9bv1iDuTumANrOZfGJR2Mf6ihOvf76p/8a+zT57QKJIZpSpML0tC/iS5qtlEhDvnkrcQjrz5PTxWc0t8etE5XGMqhT6SuMloLemlF5xG8/UZHUYZ9RvZuMCSaNjDKnTSxErFNz+bw6WCZxn1EkkOV+k5fNcriJdO/t+LdqVp53zn/wCnOON541EAAA=='
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
