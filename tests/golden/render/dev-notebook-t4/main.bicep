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
      script: 'H4sIAAAAAAAC/71ce3fbtpL/X58CZY5PyVSiZCdpWqXqHtd2E2/j2OtH2q6qVWgSsllLpC5J2VZz8933NwOAD4mUnfTem55afAADYGbwmwcAPvmqexlG3fS69URczReTOJn1xeuTC+HH06n0szgRdnQbBqHXSWehiCNfCk/MwmiRSdH5UXRvvaQ7ja+6ujL9dp66f6ZxRK93/1okUhzFUUiUdq9klDloyYsCkV1LcS29aXYtZBTM4zDK+NnufD4NfS8LQeGNfn+fySilB/MkvpSpsLd3Xro9/Lfd/+7l9rbjtlKZiY5ctMIozbzpVHQC0ZmJ3ssXL0R3kVIXfW/anYaXpqNrPW+hTfFjQ2nz28Gv+OGHr8Ghn49Pj8YHxz9/3XryFVciPs6X2XUcPSuYucrLBGOViQzE5dIUeSV0p9VTfxovgk4IjrVFsojoUbpMMzkLMMwnoCxEuTOatjj47eRg7/xgXwyVuP7pzYIRl679VxWkXaLY0RTdLJzJxOmjqBT/fXb8TkxDXM1lwmOCuOJm8rVq8Tv+HR3t77N2YHDS4wGz0Nf1pJm4HXiZZwZOWpEsprIt0NzP4VSmXSLvcAeZ9uv54lxO5UxmyXK891Zk3uVUvmom74n3R+LuOk4lDzSL46mYeOE0bQv0LbuGmqTX8V0qJvJOMSOlp5EIs1Sk4V9Qay9tN9O/S8IMOkxs1fqfxHfCPsu8bJGKrwbCim8sh5UCHHKbCb17f7h/uNsXxfx0xe7Rfl9A9Dxb7dPjvZn41r1/JS5jtMNSTK+9uUydtpDTVDYTT2J/pojEU2isCGfeFaq9UuP140WUQV/BfGLxyd6huETnwSt0IaJeqAobuBBipiwyIfEL8sxlzZkPdNOZhWkaRlcfiDspIwYmyTLVPFu6azMhlcmtJNJ/A1k2KF0OORj0dIl5sdPriY9WiaiiSXKUVl9Y6nZpfYIyQS+pC83kp14KtfJmcxQMoVqJTK950Hq4bfGi90xYF5G+t0RMfLsLU6lQ4YSRRzwjLkWBlwSYrpeJlyy5u8KWtxLXF5eQ20LJhtRUaMDql2CHUIfUE/pMiCMOoF9JHM0wJ4UN+WSpwyaCARC/47fHr8f7h6ftysOz893zg+rjw6P9s/HPh28PaHKYh++OfxX24dmx+O7b3ra4ON9zigpQqyoF6PMRPXFb4WweJ5kAEkjCKXN/NY0vzfV1ls1dVorEPCJkMNdxaq6SvHoa+zcyy+8Wl9AKX6Z5SQCxuVwkUzDYTeQ/FmBJq/U/Fwenv4uBsFskTos6BUnM5u0QgH/fXizCoB15M9leZOE0/IsVxoXatmdyFidLd5HKwFxnMcxBG5APsAUoJJILWoryPAbquEHi3bWl77sySeIkdReRHycJ8FAG7m08Bfmp1HSCJAQLxvifFN1qOS0tMPQ2Tl2pxOteycy2asRqtYW1CueW08rl+wCVvBzTgWqVaPxycHAy3t/9/Qw0dlq/He7jF4P149kc3bcT693706O++C0MxB/28P+c0dM/oHr2H8E3Dmq3WoGciCi+s50+s2YS3gOSmrsDVUM1KhlOVGFVj+FOgs9Rrk9ufpFmyZwubK6AMWz93tmadbaC8603/a2j/tbZ/1oO1GA+9Xxpt8pzOvsrjCbxICdFf/4C7LuLzM8Lqg41Nk/DqyVQtDkL/QTGyo+jYNAzbAGjbR8ugxohLF8x1DlYVKi2q0u2he/NSdfGQOX5IhucJwsY1QwIaS7ROt4NnvWcVbbNXXXhxwEKYtZlAUrqK2gol5f3vpwDQo7PDkhn2+VOnCvaB/fzEM6RI4BMck04QGDwH3oEmdgyV4DFzL7V47Qsa5ceXMKiTJJ4VjKNX6di7+w9m/B3ZHqhgmL4rrs7auMnzsTZYk7zWgb04CK6AeMjwR0duSDL5G/BuVvSiHBuO+uM1d2cTGMvQ5fKg37vTReSqa0Vp97oocBQySuZ5MOJ0J4aXmulAmlwRIaCb8iSU2U7MkwJZ0FqF0w5ScIYthVm4GweZ91TebWYeonDBgbODuYXc4uMJPui5BzCX/LY0SIIDX1JCuJfY4KRB3gZx1nOFn6u5t3cy67dP2Fx7RL+W9Qbdvr09EsTf8M0zc2EVcNjjBu1+61VV0LEcxnZeMW6M6kWKDGPeuFCQIE9KbS4IMBDqSPRVH1NqQtJO6Up58GG1HVfk/34qU6b/gEmVc2Me6p+qzhjkaXrd7vb337v7rx47urfrpFg18i0S8gKf/+/vHnY0fZgsNPb2e70djq9batdIQtPA3M3HXy0jjQh8moyYIH1qb2CXzkXV/qLW+Yr7gsA2WEGJ1UGs6oNSgxOGuUDjbqz6oTElYPFbM4RQltMnBp89z5DboV41LTyF4FnDKmZXokPUCGwG5P1ApgOrQJ1rJHqwkxZtlR6iX8Nw7Z3sb8r3itC/T/Sp/aw1/neHcGuMTGHFIUmyUD01OxmlCh1aeZeJfFibm9z0ZkqhPmo+nkfBmPlGNjwoX05nsCeFnBABhX+YIR4JVQO/I1MIjmlEEpwBX44T+RtGMOtV34pLC+7/WD/y+/bz7+D2TMIoOoMil5WNLk0P4vO1IjPUJm4FBraTgVptcC0vGqmFmwY6g6tP2Pwx5v62ZQ8js4N/43pL7x0vulEcWcOBzixRnnNb6hqp8NdIAtDvyOertwpZi8KXOoqa0InW6uIwQSmeAhvxp3A90Ncb9dKdDgqy3NKyk1V4f5abUthaMoGyUZuI393I5cDIL1DQP9EdP7mPw7UOEp0Wu8P3u0fn5IrZmsFJmYhlAQMa0d8A2jrEuzkwUvuIhrszv2wG0iyHSloGN99AxFThKnE86xLQSiqopfcgOoiCFi9++1eb8eiuIdCTw/89BFCpRRXTxDBg2Jf9O4RMgVhCjcJaZU4yhJKGSAJcwpgQ3xzcnqMef9yuwe+guCO0N4Iok7KUfk+sgbwvyltcwgEhSJkiH85pYAY+GvxZv/osLt/IrxFEMZiAhecnHpkp9Dwcyg4MhoRPAsq3CJXmIaw93b37OxAcZn6R0Oltg2Dzo4Ox7unr6nAUE1XKCWyDQgPlO7SDcIE8izpwW3izYoXFDIUdxwpaFA3j5I4WPgZBSJFuUUUAq3DoHiiQgYTMfBjNt/t1kgjDGQ7hiOf2oCRIMdM4AGnByCDD+rFh5UUQT9PHZgEAL1U7ZFv5kVLzgXk0EI+UE+593gNdSLIojDPpT92xefI40XrqeWUYLyCRlVEqtQHdWIpdxwEGjyJ2xqIgskCr23n8a2wujY34j+mkSZMVDgUQWMXsuw53RL8qOGx6+eDspdkKXXUXtFQp0ouIoTcLiNWpDWBQG5MIrNJqwpF+EC3LP6T3fM3beOkCkIbOOPIlmJuJpwWhV+qU5x4QaU5NRHFIgcBSq4W5oY1gWitAgnVJXWFacKsDzPD+FTOHfGNGFbkYNAG5UHdckbVEKkqs7bg0ZW5GTAPTbEwJbNmzx3zlPAjTe15m25+Gx//4tR6lPNWfSxAo151NTD+c+Oic7qY83sJYIoA0C645RI8dHVtsN69cpEG3HG3O9uAOeTl+aZgaIO5bmKXm6OPRghng8u8psVKMlbHcoa90Ubbrinkbg35hWMCIraoFZ5wajOI/QWnqaAaHsMI9EmFs3ng54q3SGND/yS0CLzMGKfTm3A+p/Dem6Yx8nUyaulM4lJcIwEqkEqj1BBleuUsldNbWoWwhr/unr47fPd6JFzXtZCbUFm2ITX2kcIzDFmyptJAcnYHksx5Ytxd6vu+eqQnNyl4iIDrmqpKhIBkh2Rp1FoFUYAsDApZw4/WAwCwhoJgF7qgO+MioTRW19TOMOyPcvk8EMg2wU2YmsDDRlNtYU/DFIIIQtjR+smAYg3TAX7ImKqzZ1+IXme6IWZEpR1K18eXfwJTYGc8QeWLHLjDQrFgtMY6lhlCaKNP6BZ4m5hplBazYmUIHFJw54u+66iFfhQC5eTzRBMLaJUMdc2pTwWU7odXrAlXJGBuqdqjK90dRpzy87wrFjwb8haN1b4l6VWyJZFZLOjmCf9JKKHwmM+eTqX0BTwodMGwkvyljxbTAhddF0AAFyLjaxXI2t8iTU69YtYy5z3K2sCzelWkXyykXywuBqufXeMlG4kG/t+uMV+lY3isqjNOfTUkK6YbmL1W3g4pyOE0juNsTu+s1cUglTzyPNEaAc7oaBSkKeY0qPw89G/I8DxlC1aFu0mYQLfJzeKXH4SNwAAggzAtddQaFcFWIcOK7aQ6pFNct8rPIL+jgjemVHW2Foy/cRqktBK1Gk/OKGAZJjiPRbOEStfCQtTAIUpO5tqsX+d8f4xseLWNtbAaPxPaYCqMaenJpuiizdakkIFNb2BYCQiRKUtThJNOsfBGa42h30XTGX4Yh5QH3eZlP1rv0+uouVzyiBI0TSKB2sTkUtRKbrhJKvBzFM7BsWogcxXVBXW6sGDxLL2iQIRaxDCoStVI04Jvaq8lUYZIkdqoC91l6umVZl91+DAZITn6W4EltjA+nftjnqDZj1dDhqhRX5RgrmYoZVao2hVWDLdHDiPMcKTAh6rzOsAXtUCvNtMnoCQJVRw0/eaOQn8d2VOLM2pRh/GKKyqEn3qzy8ATV+iZ7mMJJ4iGGijPsZkuAdD9VMhCh0woqRBQ3Vurar/ytjI7ddaR/nkpy0SXprsmSupdEx2sSIEMI9cMSmLhnpjJC1HjfI2KFuDHHAcSpU2lLKekfeCu68FNi4Jq/pO6Yq9FUDxt156+ni8OaUFukHO1rsgFVusGjC5KmdbloJhBq3roYi2Nd4gXFA1imSo/8xI4kWMOv+uqXRRrgycy8eHKDgpeLghkiE9Xk/uxh1zDLTL6ioGVV+qmjvwRLy9eYKXxKPypRBn5hHFOghYix5xWaCZxTpLaQENJspHIebGyuVciUVrwJCLXcZZitUKNcOWdDBqGeEIh8j582V8V4bUCjHvt2se2pTMmwBleCB6re+fB4v4CGhtl48+s5mFOgmPjL2ytsXzNowPfvyiWiAdmDYnm69oqEh7WUNhnCNE5a6XYClW0B1aEgrRLZvX1yiJ0nej2kFw35AlcqyWc+hVTZYdzw82g/CWWO/d+Fe4L+yPSxUnQg1P7EWHCJ9IJTlGYB5+cB033CCmHSlJP9VzHDFVbrRfSkqBkQB4Rf5ga2sRUOEZurH0zfI5Ari1uHeXQ4cpEEy6s8yxdyVmhzZtyVoi5YCm3iWkh0RGEV+S6roYdxvVbEVRTCLQykn+1L5ILtN4LYVlWIjctXqeG7dUCdbbvc3wCtSEEGT7IgeVXSlQSbhoDShGz9f5090gw3GroFfZPWCQqmUXC66YqBPVN9f615lQNarMt1UbwgtPN4nD/Ycupa+zRdiYsQ4e0kEDqUX5+pp9/hjllNlGyYEFpsy3my0PW0iAms7sCmfykK7Z7z7978fLbB02mIaRkXaGkHm0gtW44a20Fj69UFsv+MgJEiD/1GoUj7D0adVM5Mq+mzGOsy6Osrt9k2PaUPRNnbAbF68SbX4c+MsFIudE+NaYu7F+5xw00dpUp/dzKj7OUjzKGCh6UYqrX4t9t7SiUKRk6eT/nPhfG7rgUbNJSH3SeE6HVvacu77AiTeQNpV+nvOWKk3xpF1d7vKRJuy8FdCVb5oYvjsa063NQrAZVV+r0yi3VIaglXFE9zckr9grTyMAyez5oO+igtLZgYkv9njxoWgc0T42l4Xprce46NWMdrILRhmT+ajNNvNDD/yFnfG3yYrgm+nqAzVlVr+I50tYrJP1TO4gHFKWY3bNWfUm9NXXwM9LdDcSOlGs0sLYCyjPhr1agdHXTr42FGhP5Q7dyw5vFaos3Zcwdq7aRLWErJpaUt2aSVp4UKekn5Fhw2tD3orwt7iMcOqm2cwl74i2mSNx7WMzNgHjkjOClRxvNhI38mLyjPVBmA1SJekoaobbK3sUL5ESv4bDTshRrhNq4vO6QPMKWNoj5AREb8ZZ3R9fI18iWN+21GsXaIDS9XCfYTxFbKS289dlO0gZ3xQtaH+JUsP2QbtSIfUuUVpIeEH7B3NwhVrO0NPOLOUcAZBz7QTWFpxiuIoGSgA0DLpP4RkZmL4waJTRDb6kOJPlIMvJBwct3VXOONYilSl3OvAxrMVX1USGPo3d/5xxO4ZRMWVvTkroSEd62IFhdSU21lhYJWaz5XcKqNSGZ8bSJDzXpV9rzaig0Jlw9ahp/xoaN1YBK89HQWQsdUHN9KVvJRcMrN7CCsfm0QJ/Xq5ueWFvpq5yLfagm+fO2ekuLCUaY6mwG2AdmWuXBUCH9WBumSntV9akdd6E/JVb3/+MIwKz8BilKOpUiEddQIM/9VqFPFNN5iA3Q0AD7BhtKTN1Kq/wEy3kdfNh/0euNNs9WDVEkutyW0jYnYppTazVLNfKGc4ihecIi5130BaUSemipbjbN5UYegC+r1kDlgRxD5IoKuIs5bdeuSrzOMHO0qruixBbfrIjMiIsBRhWtFjACW3tZcRqph2avNO/rqvMZ9Za3lY2Cx9XFitU91XW+pPEN78MATKONiGZHXP2mxMYMSnkXJefjETQmS9LsgQXt5/MW/JwOE3jZwE9v21GsNq3iglYkU7NSUg3Ci514pUQK3HGUqG7wrKyF8ek32nOyyCoZiSpiTagZP19foooc6FNhs/OhbTmjVeQkdZ7wetT2ds1uoNXVdTOo2gC+GXboX30gX0Efsw99QmsfjWU5sJ8Md0aNJTiQnwyfNZSoCc9pbXQyfN7UajUkV4VfbC6cx92q9LdNpSuhtSr7sqlsKdxVJb9rKrkSTBaM/b6pRhEa8QxqKqPCpXx61ZerRqmQZq9BEuVglKbA5vhiDage53pW3E/rITffKU3Vr2jTLGYSu+7Q+r+RNdRA8PcTXpt99AK7ykbaDOXvmemHNOQx2pGb+rrUaem892ry9DF2nw0w4Rkxu97Q59azKk2W0NBSTLRGZKLLJnO1nDlgSQWZV6sF9CgVpdKomjyLvNOr1r6UfjEnAdTpY7uwn2pfpRG9ZU5e0REeOqJmFr9ntLcwIy2d8LGy2vNkKruSujPvRgYhDGZ+xBICSbNxfMNzbL1c6dRNTUk6EILW1eGgllFyWinPOWfRSazXMuINZwEWO9QhxuL9njpCktArztdRxus6TnlPsV0CNev97JAIUKN6iYge8O7MUilzNKlScm4ecmn2RPWZpdJ0sQ407zEnU1TPRcElPhUHE9jR2HQ+CRNF7/zPUUfvktWRZinK1AjSlHqrCSx0jUf6XlyNN+isdDhXAZ4TW/pAFdS2qkxbs63ArJoXOzmJDC04rh2b2TATJy6fx7bzUzWpTYf2kFUZ38hlqk8FpghSeZN8OiDPBo30aQ0Q4ckf5riXPrLM0d/UrkzcSvPFBhFOKn7kQ7S5CmJBWFfrF4eiLVXa6jMBIFmBHvpI1Wy+SfKKELPSRVFrlW8ZN7x+2qg4aaQ6kJ81QkvmXCbXfUzLlrOqdl+tqV3dGZrGc1BGcnUwIwzM0Flr0/ITjno8+uyCzkxQVoyN5ytBTSEy4q8A8HcOimO7tHX2yiQZ/EUWT8j/tTPREZVDq4GcZh6W0qA1eWXHqdHbPLaiPbfNG/2rc+Gp4WJ5X+ayJHaabgxPoOpgEXN7Z1TZyO0tV1Y1qfoPekBV1rJ8Z/GtolU2Dj0iZVSdDem2thXqYWkTt/3m/PxEGM1JQqSOdARFz7Dykp/GLH0W4BW9BI55E9qt+kJ/uiP9rD3czQpYdxyrchyvdJbOy9TCadNJ6XSoZu7o33VampWEv5AwoOwzrCsUzoPvp/adqLPQMHGQ4bNer3J2VNkXgyRK2kyqNne/0+u1iw85PHRwsC1+kcvGo5+a5Ives3b5Ow7QET4KIt6gK0hR26XPFrg/QXFJV/SxT11EUyfVCuLx64NzO5XTSXlXAB/DZl0Ch4z65a8v42BpZKtwfcNnLJjKJ8eVfLi7RIXaRD+RiAT75nGUSj6kVldABeVY6EMYC4jpnC/nvIvHKxrtlo4Hb678VkZX2bU+BU4eGw3HcVaqFjXT1T7fEaBphOS6rZyd0/hqrPeEME/b4qmXXKWr4lTTeuZhRuG12YAK9doRPwzY9eXHdPNc7W/GLWJpdie051jCduMHkGsWZVwXUbVj0gKK1o8grlHF1DM+iiL/bLRa4VnFn7cqJ4FUVSCsPvZXq/5NTq5TTuep1jCyZ2tDZS0uDVRpNalkScdJv8/40rat/CMrVrvCC3jkRvlXqCkyYzrMcVs5HGVgubavO2t9VbPEevQkgouK/im8XmuTz2agPjfV65UFh2Vi/VEErYJq815/40ed6EsaZ5UvO4l/6u/dnByfnuNG9S93uQx+QVXRlTHvOByPeaDjMSnueKyHSv2hKM9mdaY7ZpLTKn3iquVfz+Jg09e0yt/HMh/Skpnf1ce69G+37jNT+vMCa1/VGl4ggzdq7cvUR0BPGDEof1NLfyun/HEyLDhu+BwZpvnwTLU1ahECDWBcEAlmrYN76Z/RlqfBIz7+ZUSzrR361tmCD3odgIc6+t+u8u6zuMEf3fpCXqjDR8ovwGApkktGreNoD24DfRJo8LSD/8TT/tM+rOKu7y8Sz1+eSX+wDUwbHqpjZaPWrx4d0PxpOeDOpC5YA6v5BYPSLsYXSnj1E06rH31r7ZInNIhkdhcnN6aXJSF/llzVbCLCrVPJG+AG3vQOHqu5JT69aO0vMZVCHynIZLCU9NILjqPp8oSOUgy6tWycYUEv7GANNaljpeKbn03hUsGzjDqJJIer9By+6yXES+fW70Sz0jRzvvX/2O0Pj+ZPAAA='
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
