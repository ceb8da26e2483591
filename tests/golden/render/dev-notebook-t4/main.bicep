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
      script: 'H4sIAAAAAAAC/71ce3fbtpL/X58CZY5PyVSiZCdpWqXqHtd2U9/WsdePtF1Vq9IkZLOWSF2S8qO5+e77mwHAl0jZae/d9NTiAxgAM4PfPADw2Wf9yzDqp9edZ+JquZrFyWIo3p5cCD+ez6WfxYmwo9swCL1eughFHPlSeGIRRqtMit63on/rJf15fNXXlem399z9I40jer375yqR4iiOQqK0eyWjzEFLXhSI7FqKa+nNs2sho2AZh1HGz3aXy3noe1kICj/o9/eZjFJ6sEziS5kKe3vntTvAf9vDr15vbztuJ5WZ6MlVJ4zSzJvPRS8QvYUYvH71SvRXKXXR9+b9eXhpOrrW8w7aFN+2lDa/PfyKb775HBz6/vj0aHpw/P3nnWefcSXi4/Ihu46jFwUz67xMMFaZyEBcPpgib4TutHrqz+NV0AvBsa5IVhE9Sh/STC4CDPMZKAtR7oymLQ5+OTnYOz/YF2Mlrn95i2DCpRv/VQVplyj2NEU3CxcycYYoKsU/zo7fiXmIq6VMeEwQV9xOvlEtfsW/o6P9fdYODE56PGAW+rqetBO3Ay/zzMBJK5LVXHYFmvs+nMu0T+Qd7iDTfrtcncu5XMgseZju/SQy73Iu37ST98T7I3F3HaeSB5rF8VzMvHCedgX6ll1DTdLr+C4VM3mnmJHS00iEWSrS8E+otZd22+nfJWEGHSa2av1P4jthn2VetkrFZyNhxTeWw0oBDrnthN69P9w/3B2KYn66Yvdofyggep6t9unx3kJ86d6/EZcx2mEpptfeUqZOV8h5KtuJJ7G/UETiOTRWhAvvCtXeqPH68SrKoK9gPrH4ZO9QXKLz4BW6EFEvVIUNXAgxU1aZkPgFeeay5szvdNNbhGkaRle/E3dSRgxMkodU8+zBXZsJqUxuJZH+G8iyQelyyMGg5w+YFzuDgfhglYgqmiRHaQ2FpW4frI9QJugldaGd/NxLoVbeYomCIVQrkek1D1oPt8vNWReRvrdETHy7C6Gl9kbK+RA/T0US+tfERnAZWiJ27u+F7yVJKFNmEL95gxdRHPXopRelUPENQoxX80BNZC8VF9FNFN9hZkdxJvKeatQ6YWQUL6iRKPCSAHBymXjJA7NT2PJW4vriEnq1UrpD00hoQB2WYJFQkaYP5hvRFgfQ/ySOFsAMsEKmWeqwCWOAxu/0p+O30/3D027l4dn57vlB9fHh0f7Z9PvDnw6KR/84/k4/QkPm4bvjn4V9eHYsvvpysC0uzvecogJmQpUopuARPXE74WIZJ5kAeEmCVnN/NY8vzfV1li1d1uPEPCIwM9dxaq6SvHoa+zcyy+9Wl1BkX6Z5SdgOc7lK5uC5m8h/rsClTue/Lw5OfxUjYXdIlhZ1CsJZLLshbNR9d7UKg27kLWR3lYXz8E/WcRczrbuQizh5cFepDMx1FsOCdWGlYB+AY4nkgpaivIyhRW6QeHdd6fuuTJI4Sd1V5MdJAgiXgXsbz0F+LjWdIAnBgin+J8W1Ok5HyxC9jVNXKom7VzKzrQZJW11h1S2Q5XRykT9CJS/HdKBtJRrPxDkmyl2c3MxjaL0Ni3AHi0DaC+Zj8LeYkSmpplh4DwrReG5Fq8UlysQz8Ud8SQWUGmMOw3SRLQBKySuwqZPr3IZu5mXqXewTdfTzx4ODk+n+7q9nILLT+eVwH78Qih8vlmCznVjv3p8eDcUvYSB+s8f/60ye/4ZZY/8WfOGgdqcTyBmm8Z3tDFmEs/AeaN/eH0wJVKOS4UwVVvXYkkjoQ5TrvZtfpFmypAubK2AgW7/2tha9reB864fh1tFw6+x/LAfqupx7vrQ7ZeDJ/gyjWTzKSdGfP8FFd5X5eUHVodbmaXiNBIo2F6GfwA/w4ygYDQxbwG3bhzemRginohjqEiwqpqCrS3YBskuaE1MYvOUqG50nKwg9AzKbS7SOd6MXA6fOtqWrLvw4QEGgQxagpL7CTOoojPflEuh3fHZAc6tb7sS5on1wvwzhdzoE1HJNODBu4D+UCTKxZa4Aq4V9q8dpWdauUeJZEi9KXgcMy97Ze/aO3pEmQw/F+F1/d9LFD0zB2WpJ+CMDeqCNhOCOTlyQZfK34NwtaUS4tJ11xupuzjDpMnSpPOj33nwlmdpaceqNHoqeXflwIrSnhtepVSANjsgG8w05SVTZjgxTwkWQ2gVTTpIwxiSHBTtbxln/VF6t5l7isO2GH4n5xdwiCGA3n/xuuKIe+7AE9aEvSUH8a0wwcq4v4zjL2cLP1bxbetm1+wecGbtkuizqDfvTevqlib9hmuYWzmrgMcaN2sNO3UsT8VJGNl6x7syqBUrMo164hIr2rNDiggAPpYlEW/U1pS4k7ZSmnAdb19R9TfbDxyZt+ieYVDWH7qn6reKMRRZ52O9vf/m1u/Pqpat/+0aCfSPTPiErQqn/8pZhT9ut0c5gZ7s32OkNtq1uhSxcI8zddPTBOtKEyGHMgAXWx24Nv3Iu1vqLW+Yr7gsA2WEGJ1UGs6qNSgxOWuUDjbqzmoTElYPVYsnBV1fMnAZ89z5BboV41LTyV4FnDL6ZXokPUCGwm5L1ApiOrQJ1rInqwkJZtlR6iX8Nw7Z3sb8r3itCw9/S5/Z40PvancCuMTGHFIUmyUgM1OxmlCh1aeFeJfFqaW9z0YUqhPmo+nkfBlPlwNgIT3w5ncGeFnBABhXOQIRQMFSx0Y1MIjmn6FRwBX64TORtGCNiUi4/LC9HVGD/66+7L7+C2TMIoOqMil5WNLk0P4vONIjPUJm55KzbTgVptcC0vBqmFmwY6o6tP2Lwx5v72Zzcjt4N/43pLwIgvulFcW8J3z2xJnnNL6hqr8ddIAtDvxOertwpZi8KXOoqa0InW6uIwQSmeAhvxp3BR0XKxG6U6HhSlueclJuqwk23upbC0JQNko20Uf7uRj6MgPQOAf0z0fub/zgG5gDc6bw/eLd/fEqumK0VmJiFKB0wrAOGDaCtS7CnB2++j0C7v/TDfiDJdpCzZ2KMDURMEaYSL7M+xfeoil5yA6qLIGAN7rcHgx2LQjaK6j3w00d0Sl4tnFePApuhGNwPXoggTOEmIWMVR1lC2Rjkt04BbAjNTk6PMe9fbw/AVxDcEdobQUBP6T/fR0IGcQJlxA6BoFCEDKkFztYgvfC5+GH/6LC/fyK8VRDGYoZQgYIPJP7Q8EsoOJJFFGRS4Q657DSEvZ92z84OFJepfzRUatsw6OzocLp7+pYKjNV0hVIikYMwRuku3SCcIc+SHtwm3qJ4QaFNcccRjQZ18yiJg5WfUcBUlFtFIdA6DIonKrQxkQ0/ZvPd7Uw0wkC2U3jzqQ0YCXLMBB5w5gUy+F29+L2WfRnmWRmTW6GXqj3yzbzogdMsObSQDzRQ7j1eQ50IsigcdemPXfE58rjWem45JRivoFEVkSr1QZ1Yyh0HgRZP4rYBomCywGvbeXorrK7tjfhPaaQNExUORdDYlSx7TrcEP2p47Pr5oOwlWUodtWsa6lTJRYSQ22XEirQmEMhNSWQ2aVWhCL/TLYv/ZPf8h65xUgWhDZxxJKIxNxPOOMMv1dljvKDSnFWJYpGDAOWtC3PDmkC06kBCdUldYZow68PMMD6VS0d8IcYVORi0QXlQt5xJNUSqygz5IhpdmZsB89AUC1Mya/bSMU8JP9LUXnbp5pfp8Y9Oo0e57DTHAjTququB8Z8bF50z8Zw6TQBTBIB2wS2X4KGva4P17pWLDOuOu93bBsxhyYNvCoa2mOs2drk5+miEcDa4zGtarCRj9SxnPJhstO2aQu7WkF84JSBii1rhCWeNg9hfcYYNquExjECfVDibB36u+AkrBNA/CS2SlOIgnE5vwuWSwntvnsZIlsioo5O0D+IauWWBLCClsDgFuUjl/JYWeKzxz7un7w7fvZ0I13Ut5CZUgnBMjX2g8AxDlqypNJCc3YEkc54Yd5f6vq8e6clNCh4i4LqmqhIhINkhWRq1VkEUIAuDQtb4g/UIAKyhINiFLujOuEh8TdU1tTMOh5NcPo8Esm1wE6Ym8LDRVFfY8zCFIIIQdrR5MqBYy3SAHzKl6uzZF6LXiwgQM6LSHq2ExJd/AFM4c0zli+UFh4ViwWhNdSwzhtAmH9Et8DYx0ygtZkVtCBxScOeLvuuohX4UAuXk80QTC6hOhrrmNKcCSvfjK9aEKxIwt1Tt0ZXuDiNO+XneFQueDXmLxmrfkvQq2ZLIrMP087WUWSjnnCr3dCplKOBBoQuGleQvfbCYFrjougACuBAZX6tA1v4SKxDUK2Ytc96jrA08qzdF+sVC+sXiYrD62TVespFo4f/tGvNVOobHqjrjNFdDsmK+gdlr5e2QghxO4zjO5vTOWl0MUskjzxOtEeCMjkZBmmJOi8ovQ/+GDM9ztmBVuJuFCXSb3Cx++buwERgAZBCmpY5a/iPYKmRYsZ1Uh3SK61b5GeR3VPDGlKrO1oLxN06LlGpRq/HkjAKWYYLzWDRLqHQjLEQtHKLkZK7N+nXO96fIhhcyWQur8TOhDabClFb1bIouumxNChnY9AaGlYAQmbI0RTjpFGuatIwb+n1aqsIP45DyoFUWnZZS9RJ1Lpc8ogRNk0igNjG5FLWSG26SCvwchXNwrBrIXEV1QZ0uLFi8SK8oEKEWMQyqUjXStJae2mtJlDFSpDbqQneZenql2VcdPkxGSI7+VmCJLYxP5/6YJ2j2w9WYIWoyFCWYaxhKmRWqdoUV4+2Jwwgznijwoeq8DvCXWqBXm+kTUJKEKg6afnNHob+O7KnFBbWow3jFFRXCz73FZeCJK/RM97GEE0RDDZTn2EKXAOh+LGShQyaUVAio7q262tfeVmanzjrSPy9lmejSdNdGSb1ro4OVM5Bh5FpASSzcEzN5wWyar6XR3oYpx4FEaVMpyylpH7jrenDToqCa/6Su2GsRFE/btadvl6tDWjgc5VxtKnKBVcURo4tSpnU5KGbQ6iO62EjjHeIFRYNYpsovvARO5JTD76ZqF8Ua5olMfLiyo4KXKwIZ4tPV7H7qIddwi4y+YmDllbppIn/Ey6AXWBE9Cr8rUUY+YZqToAXTKacV2kmck6Q20FCSbCVyXqzA7pVIlBZmich1nKVYrVAjrL2TQcsQTyhE3ocv+7MivFaAca/b+Ni2dMYEOMML1lN17zxa3F9BY6Ns+onVPMxJcGz6F1trLd/w6MD3L4ql7JFZQ6L5uraKhIcNFPYZQnTOWim2QhXtgRWhIG1Aqr+uLZY3iW4PyXVDnsC1WsJpXjFVdjg33AzKf8Vy596vwn1hf0C6OAkGcGo/IEz4SDrBKQrz4KPzqOmeIOVQSeqpnuuYoWqr9UJaEpQMyBPiD1NDm5gKx8iNtW/GLxHIdcWtoxw6XJlowoV1XqS1nBXavClnhZgLlnKbmBYSHUF4Ra5rPewwrl9NUG0hUG0k/25fJBdosxfCsqxEblq8TgPbqwWabN+n+ARq4woyfJADy6+UqCTcNAaUImbr/enukWC41dAr7O+wSFQyi4TXbVUI6tvq/XvNqRrUZluqjeAFp5vF4f7jllPX2KOdWFiGDmkhgdSj/PxMP/8Ec8psomTBitJmW8yXx6ylQUxmdwUy+UlfbA9efvXq9ZePmkxDSMm6Qkk92kBq3XA22goeX6kslv1lBIgQf+g1CkfYezTqtnJkXk2Zp1iXJ1ldv82w7Sl7Js7YDIq3ibe8Dn1kgpFyoy12TF3YP3OPW2jsKlP6qZWfZimfZAwVPCjFVK/Ff9raUShTMnTyfsl9LozdcSnYpKU+6DwnQqvbel3eYUWayHt1P095yxUn+dI+rvZ4SZM2tgroSvaQG744mtKG2lGxGlRdqdMrt1SHoJZwRfU0J6/YK0wjI8vs+aCdtqPS2oKJLfV78qBpHdA8NZaG663FuevUjHWwCkYbkvmrzTTxQg//m5zxjcmL8ZromwE2Z1WziudI26yQ9E9tzh5RlGI2JlvNJfWu39H3SHe3EDtSrtHI2gooz4S/WoHS+n5qGws1JvKHbuWGN4vVplvKmDtWYyNbwlZMLClvwyStPClS0s/IseC0oe9FeVvcRzh0Um3nEvbMW82RuPewmJs5at8vXnq00UzYyI/JO9oDZTZAlainpBFql6/aQ3wNh52WpVgj1J7wdYfkCba0RcyPiNiIt7zxvEG+Rra8aa/TKtYWoenlOsF+ithKaeFtyHaSzg4oXtD6EKeC7cd0o0HsW6K0kvSI8Avm5g6xmqWlmV/MOQIg49iPqik8xXAVCZQEbBhwmcQ3MjJ7YdQooRl6N3ggyUeSkQ8KXr4hnHOsQSxV6nLhZViLqaqPCnkcvbE+53AKp2TO2pqW1JWI8LYFwepKaqq1tEjIYs3vElatDcmMp018aEi/0p5XQ6E14epR0/gzNWysBlSaj4bOWuiAmutL2UouGl65gRrG5tMCfV6vbnpibaVvci4OoZrkz9vqLS0mGGGqYy9gH5hplQdDhfRjbZgq7VXVp3Hchf6UWD38f0cAZuUXSFHSgR+JuIYCee63Cn2imI6abICGFtg32FBi6lZa5SdYzuvg4+GrwWCyebZqiCLR5baUtjkR05xGq1mqkTecQwzNExY57/YvKJXQQ0t1s2kuN/IIfFmNBioP5Bgiayrgrpa0Xbsq8SbDzNGq7ooSW3xTE5kRFwOMKlotYAS29rLiNFIPzV5p3tfV5DPqLW+1jYLH1cWK+p7qJl/S+Ib3YQCm0UZEsyOueVNiawalvIuS8/EIGpMH0uyRBe3ncyH8nE4UeNnIT2+7Uaw2reKCViRTs1JSDcKLnXilRArccZSobvCsrIXxwULac7LKKhmJKmLNqBk/X1+iihzoU2Gz86FrOZM6cpI6z3g9anu7YTdQfXXdDKoxgG+HHfrXHMhX0MfsQ5/R2kdrWQ7sZ+OdSWsJDuRn4xctJRrCc1obnY1ftrVaDclV4VebC+dxtyr9ZVvpSmityr5uK1sKd1XJr9pK1oLJgrFft9UoQiOeQW1lVLiUT6/mctUoFdIctEiiHIzSFNgcX6wB1dNcz4r7aT3m5julqfoZbZrFTGLXHVr/N7KGGgj+fsJrs49eYFfZSJuh/D0z/ZiGPEU7clPflDotHaWvJ0+fYvfZABOeEbObDX1uPavSZAmNLcVEa0Imumwy6+XM2VUqyLyqF9CjVJRKo2rzLPJO1619Kf1SnK+K0KcpnWSrbc/jo3NZ+QBeSkeCzWE6uziuWT5S5xRHk8zOWNqt9sgOvZxW0wY82nBBawD1HXifcnKlZWdSpDZufFs9n6APSagz73bhWqgtp2ZWWOZQGp1uotN7Zl/AgrZdZtTLGZ+4azxqpxJPqbvwbmQQwpfID85CV9NsGt8w/KyXKx1IaihJZ2WIXXxuqmPmP20iyFlh0SG1tzLivXgB1oHUOdTi/Z46XZPQK05lUjLwOk55u7Vdwnvr/eKQCFCjevWMHvDG1VIpc2qrUnJpHnJpdtL1ca4SklgHmveAqxTVc1EUJU6VAv+DTmIOa+qsin0sjnawq7bphBegRp+dyHFb7zPWsXopTtcY3Ja8bAjNdI0neq9cjbc41TqcawqjypY+koaJX9W5rcVWYPYdFDONyNCS7drBow1YNnP5aK2dn0tKbTr2iLzU9EY+pPpcZYown48ZpCPyDdHIkFZREeD9Zg7M6VPqHD/P7Qr0VZovtthwWvYDH5fONRVL6rrasDixb6nSpAMgAFtQ4K8+lLZYbpK8IsSsdFHUqvMt44bXz2sVZ7VUB/LTWmjJnGzluk9p2XLqavfZmto1nUJqPUlmJNeERsKgEZ2qNy0/Y8T36JsgOrdDeUV2P94IagqxJX+igj/CURx8ps3HVwZc/VUWzyiCsDPRE5Vjv4GcZx4WI6E1eWXHadDbPDqlXcvtRyWqc+G54WJ5Z+tDSew03RjFQNXBMvD2zqSyFd57qK0LU/Vv9ICqrGX5LuJbRatsVAZEyqg6W5VtbVLUw5KdtX84Pz8RRnP4ixE6BuXPQzjFedbSNyve0EvgmDej/b6v9Hdl0k/aBd+ugE0H2ioHGkunEb1MLT23nTVPx2rmTv5T581ZSfjzHSPK38MIQ+E8eM9q5446TQ5LABm+GAwqp2+VGTJIoqTNpBpXP3YGg27xlZHHHI+u+FE+tB6efcafF2HB5B8CGT7+0RQ1HevfCyl9C6Sz1t/iCyZQQD6pI37AOLGCYJe+fuF+h1lBiqhP5eoiuuukt0E8fXtwbqdyPitv2uBT8tx9sN/odv76Mg4ejOIoo7HhAy5M5aPjSj57X6JCbaKfyBNDNss4SiWfIWwqoHImWIdFlgH41Tt/WPImK69otF86vb258k8yusqu9SF9cqhpOI5Tq1rUTOt9viO01PDLdTs5O+fx1VRv2WGedsVzL7lK67qiMGPhYbritdkfDN3dEd+MODLhx3TzUm0/xy1SHeyraO+1ZDiMk6G9aS68M3FM1kbR+hbENWSZesYBUuRfTOoVXlTCLatyUEtVBXzrU5mNc6vN0XbK2VbVGkb2Ym2orMWlgSqtJpUs6Tjp9xlf2raVf17I6lZ4geDFKH+NmiIzpbM2t5WzawbzG/u6s9ZXNUtKnZ1umEHwkdE5ZQnWGmQQUzVHBTKVhYeVfP3dCq2Gan/lcOMnzeijLGeV75qJf+mvPZ0cn57jRnUz9+kM4EBd0aMpbwqdTrlT0ykp73Sqh0v9oUDcZpWmO2aU0yl94K3jXy/iYNO35MpfhzOfkZOZ39cn7/Rvv+kja/oLEGvflBtfIMk66ezL1EdgSTgxKn9RTn8pqvxpPqwJb/gYH6b6+Ey1NekQCo1gvRCsZ52De+mf0a600RM+fWdEs60jhs7Zis/iHYCHOkGzXeXdJ3GDPzn3F3mhzocpxwODpYgymXSOoz34JfTBqdHzHv4Tz4fPhzC7u76/Sjz/4Uz6o23g2vhQnfybdH726Aztdw8j7kzqgjUwy39hUNqH+YsSrn/ArP7Jw84uuVqjSGaUCzG9LAn5k+SqZhMR7pxK3qM48uZ3cInNLfHpVWf/AVMp9JElTkYPkl56wXE0fzih0y6jfiMbF1hzDXtY5k6aWKn45mdz+GxwXaNeIsmjKz2Hc3wJ8dKnBe5Eu9K0c77zf0F39qvkUgAA'
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
          query: 'let Running = toscalar(Heartbeat\n| where TimeGenerated > now() - 45m and _ResourceId endswith "/virtualmachines/vm-dev-notebook"\n| summarize Beats = dcount(bin(TimeGenerated, 1m)), FirstBeat = min(TimeGenerated), LastBeat = max(TimeGenerated)\n| extend Up = iff(Beats >= 35 and FirstBeat <= now() - 40m and LastBeat >= now() - 15m, 1, 0)\n| project Up);\nGpuTelemetry_CL\n| where TimeGenerated > now() - 15m and _ResourceId endswith "/virtualmachines/vm-dev-notebook"\n| summarize Reporting = dcount(Computer)\n| extend Running = toint(coalesce(Running, 0))\n| extend SilentInstances = max_of(0, Running - Reporting)'
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
