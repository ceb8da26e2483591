// GPU pool `variant-devbox-spoke`, rendered by gpuform from lz-devbox-spoke.yaml.
// Generated file: change the spec and run `gpuform render` instead of editing it.
// Sections: parameters, network, identity, key vault and encryption, compute, autoscale,
// monitoring, outputs. azuredeploy.json is the same deployment as ARM JSON.
targetScope = 'resourceGroup'

metadata name = 'variant-devbox-spoke'

// ---------------------------------------------------------------- parameters

@description('Region of every resource. main.bicepparam sets the spec\'s region (westeurope).')
param location string = resourceGroup().location

@description('Admin user name of the VMs.')
param adminUsername string = 'azureuser'

@description('SSH public key of the admin user (OpenSSH format). Password sign-in is disabled.')
param sshPublicKey string = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com'

var tags = {
  'costCenter': 'cc-1'
  'env': 'dev'
  'project': 'p'
  'team': 't'
}

// ---------------------------------------------------------------- network (landing zone)
// The pool joins the platform team's subnet: its NSG, route table and egress apply. This
// template creates no VNet, subnet, NSG, NAT gateway or route table. An `existing` resource in
// another resource group takes `scope: resourceGroup(subscription, group)` (Bicep, "Existing
// resources": "set the scope property"); the scale set's NICs must be in the subnet's
// subscription (Learn, "Create, change, or delete a network interface").

resource vnet 'Microsoft.Network/virtualNetworks@2025-05-01' existing = {
  name: 'vnet-lz-dev-weu'
  scope: resourceGroup('7c1f2e3d-4a5b-4c6d-8e9f-0a1b2c3d4e5f', 'rg-lz-dev-network')

  resource workloadSubnet 'subnets' existing = {
    name: 'snet-devboxes'
  }

  resource privateEndpointSubnet 'subnets' existing = {
    name: 'snet-devboxes'
  }
}

// ---------------------------------------------------------------- identity
// The pool's user-assigned identity and every role assignment of the deployment, each scoped
// to one resource with a deterministic name: guid(scope, principal, role).

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2024-11-30' = {
  name: 'id-variant-devbox-spoke'
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
resource vaultPrivateEndpoint 'Microsoft.Network/privateEndpoints@2025-05-01' = {
  name: 'pep-variant-devbox-spoke-vault'
  location: location
  tags: tags
  properties: {
    subnet: {
      id: vnet::privateEndpointSubnet.id
    }
    customNetworkInterfaceName: 'pep-variant-devbox-spoke-vault-nic'
    privateLinkServiceConnections: [
      {
        name: 'pep-variant-devbox-spoke-vault'
        properties: {
          privateLinkServiceId: vault.id
          groupIds: [
            'vault'
          ]
        }
      }
    ]
  }
  // privateDnsZones.mode: policy: the landing zone's DeployIfNotExists policy adds the zone
  // group and the DNS record; this template creates no zone and no zone group.
}

// ---------------------------------------------------------------- dev box
// autoShutdown on one instance: a standalone VM, Standard_NC4as_T4_v3, image ubuntu-22.04, that is
// stopped (deallocated) at 19:00 and started at 08:00 (W. Europe Standard Time). Deallocation keeps
// the OS and data disks (home directory, notebooks, the installed driver); a stopped VM pays
// only for its disks. No autoscale setting: there is nothing to scale.

resource vmNic 'Microsoft.Network/networkInterfaces@2025-05-01' = {
  name: 'nic-vm-variant-devbox-spoke'
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
  name: 'vm-variant-devbox-spoke'
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
      computerName: 'variant-devbox-spoke'
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
        name: 'osdisk-vm-variant-devbox-spoke'
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
      script: 'H4sIAAAAAAAC/7Vae3PTSBL/X59iEJVaibVlOxAeBu9VSAzkjpBcHuxywedSpHGsjV47IyUxHN/9fj2jl205sHt1obCkUU9PT7+7Rw8f9C6DuCfnxkN2leazRERD9vb4nHlJGHIvSwSz4pvAD9yujAKWxB5nLouCOM846/7Cejeu6IXJVa+YTNfuI+d3mcT0evdLLjg7TOKAMO1e8TizsZIb+yybczbnbpjNGY/9NAniTI3tpmkYeG4WAMO74v1dxmNJA6lILrlk1mD7mdPHv8Hw+bPBwHYMyTPW5bkRxDJzw5B1fdaNWP/Zzg7r5ZJI9NywFwaXJaFrlBtYk/2yAbq8dnFlr179BA69OTo5nI6P3vxkPHygJhEf00U2T+LHNTNXeSmwVy64zy4XJchLVhCtR70wyf1uAI51mMhjGpILmfHIxzYfAjNjTWIK3GxFNFYDplvAOFkQcWEPAcrZ30+PPrAwwF3KhaISAkgU+ta/VkF/wt/h4f6+kjfI5a7aghLjuuQ3I7d8N3PLrZCcRR7yDsNyb4KQyx6htxWBCvfbND/jIY94JhbTvfcscy9D/nIzepd9PGS380Ry1tDlmRuEssNAXTaH6OU8uZVsxm81OySNxizIJJPBF74Z+dwFklsRZNBLYmyh0yK5ZdZp5ma5ZA9GzEyuTVsJGjxy1qQoubjhhO1/sIp72FuZCygMF9CA7X6ffTUbSDVOopebQ2bqx4X5DWyDBIiEzehDV4J9bpQCMAALBZdzZeJ6I4sO2+k/ZuZ5XDybLAE+cRtIrjX6WFkNe8xgBrHvCh+KeSlcsVDkMovfcNyfX+ZxlrMgcq84cZ0VxjZsmAxZDIkBciNrYWPIWyRxBO1jFiSUSVu5N2W8uE7fH72d7h+cdJYGT892z8bLwweH+6fTNwfvxx1gLQc/HP3KrIPTI/b8aX/Azs/2sGYQpYnIGBSak7mVz1dhclnez7MsdZTERTlECl7eJ7K8E9V0mXjXPKue8kuI3OOygoSHKG9zEYJ7juB/5NivYfzzfHzyiY2YZZCsTCIKbI7STgBPdNfJ88DvxG7EO3kWhMEXpQ0OdLIT8SgRCyeX3C/vswR+qgNfBJ8BzRZcAZoac5rAdBxfuLcd7nkOFyIR0sljLxECZs195yYJgT7kBR5fBGDBFP9Ji03DNgppgNpEOlzLzrnimWW2yMzsMHPVK5m2UQnvO1gqOIUHetPA8Y/x+Hi6v/vpFDi2jd8O9nHFZr0kSkG+JcwPH08Oh+y3wGefrYt/25NHn6FX1mf/ZxuzDcPnMxYnt5Y9VKyZBXfw7ZvJgR5hGkEGMw2s59Gf4OBzXOmTU93ITKR0Y6kJ2MPWp+5W1N3yz7beDbcOh1un/zJtqEEauh63jKbBZl+CeJaMKlT08wW+y8kzrwLUBG1cnrbXiqBeMwo8AZ/rJbE/6pdsAaMtD7FM7xAOvN5qChbVqu0UkB3muSnp2jTJszTPRmciR2zI4P7KW6yOd6PHfXuVbamjb7zEByCsLvMBWdxBQxU8v/N4Cv9wdDomne00iTjTuMd3aYCobTO4Hb4mHLhX8B96BJlYvFKAPLJuin2aprlLA5cILjORRI049JNke6cfVRz6QPEDKsguPvR2Jx1ckoyd5inZNfdp4Dy+BuNjpgidOECr0N+AczekEUFq2euMLcichYmbgaTmpj+6Yc4VtjVwoqbYCqIQv+Ki2k6M9fT2jJUJpMExRQH1wEOEXEy24pIpQeRLq2bKsQgShE74+NM0yXon/CoPXWGr6IGYDftS3KIIqJIkynEQ9l2VL5ALDTxOCuLNYWCUyFwmSVaxRY1ru0vdbO78jnBqNZy7SdSo3KUwPym8e8y0igFmC4+xb8weLtnZbYAwnaQ8tvBK6c5sGaDBPKLCgYB8a1ZrcY1AbaUNxabpa0pdS9pumJyLGNJGfoH267c2bfoDTFoOM86Jvi77GZMi3bDXGzx94WzvPHGKa6+UYK+UaY88K9LWv7lp0C3iwWi7vz3o9re7/YHZWUKLNAK2K0dfzcMCEaUsGXyB+a2z4r8qLq7Qi0fFVzzXDmRbMVgsM1ip2qjBYLFRPtCoW7NNSGqyn0epSnQ7bGa3+Hf3T8itFo82Ky/33TKQluYlPDgVcnZTil5wphdm7XXMiSYh0pFNcld4cwS2vfP9XfZRIxp+lo+si373hTNBXFPIbFIUMpIR62vrVl6iQVLkXIkkT62BAo00EOxR03kX+FOdGFgygOCnM8TT2h1QQEWyFyPpDmJl9ddcxDykSoCpCWowFfwmSJBY66QTkddLkBuC/c9edJ48R9grPYCeM6qpXNLkhn3WxLSIr8Qyc6jCsewlT1sIrJBXi2khhmHuhfl7Av64oZeFlHF0r9VvQr9IwdVDN066KbJbYU6qmT/T1G5XkUARhq4TZa6KKMVeAFwWU9aETrFWI0MIlBhENuPMkPuh4LRaJXoxacozJOWmqTYo7Jjah0oVkCwU3dW7a74YwdPbpaMvijmL36Uq+SsDPkUOyoy0eCgRxUhGHJ2pbKY1jVHAcMuRe839AMpTpe38LpDZNLlWqcA6XMPZt0CSH8LqOiapkUtXkqC/VlI0KQF4y2PKd7kPP6Nz5/r9nvZcgl6pJJ1iBkrNjHJqy25AfowOCAEtquPKDQ1Q4tCEKiPiEmRaDipoShXMIlQ2XKM5LliN8lhiesl5DfGttgel5/eFRVhpoXCaK3hGjUu2WypRux0vayDetzkepehwwmJBle/IZD8zVaKoccq/3WzkyZtOnGg/j5sclZ0sPZagMn1UammtvLXlkTMExLJPrN5SfqX6HvAwoNORqIEzGqjykgqSlvFKY1cTPZpFwHqaBYuwJ0uTQBCZzMymqn8wWI/3SIcz9Gj4chTHphw3hSvyrbUZfuBl66OlunZa30AHDqi+G5Wp2+xiMLE3wp6jChzNLrYnGyE+QJ0B8XgDxHldPB5z4cGFjyhBnF082bTqoSopz1FdHgavC+Cd+4HPqGysoZ9ugj6rC9S9AvbZJthjqlr3UbT+WkA+3wQ59rzzuphtMPbFphkIZyooyJGyoE0we2RUo8q82uH2VbFcRGYIYtDfIIk9qH0JRibQDqU7UyNqS7UDFB0gXWJtkImUCFYjswWDbaw/aVN9QHEGlhSjtCGtrw0kklfUpiC3gfcUmkrTW7JRo2kzZKHG922l3U4qG6HsYP11yaLad3WpZYgo0NyKzm8QuOHMWhhRsvGNG7aR8D0N+RHtKOVggYEXfZUbECsLwup+JwIg9JZtgf4tkG9fDHf6q0pUc1d7NR4W/oyYbbNXVVAZLvlTQW5xWZpKQhemZqI5gaBM6hhHgUTAuDJX4cqGIwEqXq0CFLvUmBq70m3bLZ8lM/qlzi3tz6qI7lQ0681RyFsNflU6oWjcKmpCoFlOTLYiMM/WaOrckdBgpruW+d/DmZmjOsZWVRhIi/oOSKumSKRk0diQPHXhxkg9KNJgkSGWR8A0P5cVa9FSxYYon1ti5NLyVb5F/WgkOKoPWKUzqNSKacO6aWtqaAwRAmhWLc2iKlS528YsQiNSrHQAaq7yLVMLrxdMdbGkCajKJaxUtpbU3B9ZeV1cdb7SunopmbaUlJUpKfV6S8wPVUni0gGHOgCRLOa3KkeQLxktg350iDxGnyfUnUUXxyNXZVni5Vkyo3zDwjEWW+qr+TzMXNSN0Ipqsm236KVR6hyWI7FTy9mhH+seXX9UcqnmAJZqiJVcp0plgdW+eDIcbE+aPQ8AO4H0gyskQ7ptQ9NfFRtaVnolvyi50biaRUafUJWqrBzXoCgj9GCjY2S9Ozs7ZqVmiMCbl+clNIbyrWoYNY4lXtJL5LzuDJk62ykOyWRVJm6oCn9QwdoqxqWOQaPcd6kAuqeZKy+0ZU7+Xw1dpSTqhAbKpioxKJyLWKt68lPdrkWYhQwf9/tL7S1di5SeQktboWrtSOGIqVMfJH2vt9Fh/+CLjd2pAiWOkTrNcyToiAcpS/YOpITIxRonK85rKC7pStGZKkAK7KRafjJ9Oz5DERvOGmvqTrHSJXCoVL/q9WXiL0rZar99zzGawvLNRjeRsDaw0JqgM/anYF+axJKrOroNQBdBFupM5Jtx1j1bpNQHMN160V6jg3n/5Pc8vsrmRaOaIiRtx7ZXptYz5SrNt+TQCg+p5hoVO9GimUY6SCuedtgjV1zJVXFqs45cWBRelw3lIstQI+wXHLoo5aJHlC1U3plFP8Gs0ZVhnSp4tJgV8PbEXsEFVIVDWdHPtQbFOiFY9/EaIUq9GmRodSNdaSgfKd6purUsszp9BeOblCI1KbVyBZtGM4Uzp6NPa61b2G+ldZ1pWn3NH9Zu9BlAn3aka2vSejRfLdXvN9mK48fiQKXQDTMnPRi2fqkw/u14vHc23qdTuFP2n+Ls+/jo5AwPmqQqvSl9CdQGq0+nFImmU7W36ZSUaDotdkckUIZrKdWiJ8UX22h8qmF48yjx7/sqpPmdR/lBCM+8XvEFRnHttX1cUZxGrH0dgjObIJsY+1x6KGbIXkfNb0OKc/PmRzZZct9nNTC5i1O91sQgbzCCo0cWnBnjO+7B9Yhs9AMfsZTSGBinuUdHXWMwryh5BstM+1NsUN+Y/EUm6HN+HZyxS2q9iYlxFL/Goc4p90ZP+xJPhGrXy1AOl2O7npcL11vQ8w5czMWB/qBmYvzqwvH5rxcjRZZ0wB0Esb+wvSLi/0Uhr37Rsfr9krFLicko5tltIq5LKhty/lOi1QZFiI0TOuvHLDe8RQJZPio+GfsLWFPgoQMjRgtOL13/KA4Xx0h55KjXysYoD7Ogm2NKGys139DgRoaDRC/uCk75T2McqeQlBE2d7lu2WX02c974L8axLVaxJgAA'
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
  name: 'shutdown-computevm-vm-variant-devbox-spoke'
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
      emailRecipient: 'ops@example.com'
      notificationLocale: 'en'
    }
    targetResourceId: vm.id
  }
}

// Start: a Consumption Logic App starts the VM at 08:00 (W. Europe Standard Time) on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday,
// calling the VM's start operation with its system-assigned identity. The time zone of a
// Recurrence trigger applies only with a startTime (without offset); the date is in the past.
resource vmStart 'Microsoft.Logic/workflows@2019-05-01' = {
  name: 'logic-variant-devbox-spoke-start'
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
                'Saturday'
                'Sunday'
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
  name: 'log-variant-devbox-spoke'
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
  name: 'ag-variant-devbox-spoke'
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'variant-devb'
    enabled: true
    emailReceivers: [
      {
        name: 'email-1'
        emailAddress: 'ops@example.com'
        useCommonAlertSchema: true
      }
    ]
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
  name: 'dce-variant-devbox-spoke'
  location: location
  tags: tags
  kind: 'Linux'
  properties: {
    description: 'Data collection endpoint of the GPU telemetry of variant-devbox-spoke.'
    networkAcls: {
      publicNetworkAccess: 'Enabled'
    }
  }
}

resource gpuDcr 'Microsoft.Insights/dataCollectionRules@2023-03-11' = {
  name: 'dcr-variant-devbox-spoke-gpu'
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
    description: 'The dev box sends GPU telemetry through dcr-variant-devbox-spoke-gpu.'
    dataCollectionRuleId: gpuDcr.id
  }
}

// The dev box vm-variant-devbox-spoke is running (its collector reported for at least 45 of the last 60 minutes) and its GPUs averaged under 10%: it costs $0.658/h while it runs (pay-as-you-go list price in westeurope). It runs from 08:00 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday until 19:00 (W. Europe Standard Time): if nobody uses it then, set an earlier autoShutdown.time, a later autoShutdown.startTime, or weekends: true.
resource gpuAlertIdle 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-spoke-gpu-idle'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: dev box on but idle'
    description: 'The dev box vm-variant-devbox-spoke is running (its collector reported for at least 45 of the last 60 minutes) and its GPUs averaged under 10%: it costs $0.658/h while it runs (pay-as-you-go list price in westeurope). It runs from 08:00 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday until 19:00 (W. Europe Standard Time): if nobody uses it then, set an earlier autoShutdown.time, a later autoShutdown.startTime, or weekends: true.'
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
        'Email.Subject': 'variant-devbox-spoke: the dev box is on but its GPUs averaged \${data.alertContext.condition.allOf[0].metricValue}%, $0.658/h (\${data.essentials.monitorCondition})'
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
  name: 'alert-variant-devbox-spoke-gpu-vram'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: VRAM pressure'
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
        'Email.Subject': 'variant-devbox-spoke: a GPU at \${data.alertContext.condition.allOf[0].metricValue}% of its VRAM (\${data.essentials.monitorCondition})'
      }
    }
  }
  dependsOn: [
    // the query is validated against the table
    gpuTable
  ]
}

// The dev box reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-variant-devbox-spoke --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.
resource gpuAlertFaults 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-spoke-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: GPU faults'
    description: 'The dev box reported Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-variant-devbox-spoke --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.'
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
          query: 'GpuTelemetry_CL\n| where Status != "ok" or XidErrors > 0 or EccUncorrected > 0\n| extend Kind = case(Status != "ok", Status, XidErrors > 0, strcat("xid ", XidCodes), "ecc-uncorrected")\n| summarize FaultSamples = count(), Kinds = make_set(Kind), LastMessage = take_any(Message) by Computer\n| extend Fault = strcat_array(array_sort_asc(Kinds), ", ")'
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
              name: 'Fault'
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
        'Email.Subject': 'variant-devbox-spoke: GPU fault on a VM, \${data.alertContext.condition.allOf[0].metricValue} faulty sample(s) (\${data.essentials.monitorCondition})'
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
  name: guid(resourceGroup().id, 'variant-devbox-spoke-gpu-workbook')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: 'GPU dev box variant-devbox-spoke'
    category: 'workbook'
    sourceId: workspace.id
    serializedData: '{"version":"Notebook/1.0","items":[{"type":1,"content":{"json":"## GPU dev box `vm-variant-devbox-spoke`\\nSampled once a minute by the gpuform collector (`nvidia-smi`) into `GpuTelemetry_CL` while the box runs: 08:00 to 19:00 on Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday (W. Europe Standard Time). Idle: under 10% utilisation; VRAM alert above 90%."}},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by GpuIndex, bin(TimeGenerated, 5m)","size":0,"title":"GPU utilisation (%)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU utilisation (%)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status == \\"ok\\"\\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by GpuIndex, bin(TimeGenerated, 5m)","size":0,"title":"GPU memory used (GiB)","timeContext":{"durationMs":86400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"timechart"},"customWidth":"50","name":"GPU memory used (GiB)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now())\\n| summarize RunningHours = dcount(bin(TimeGenerated, 1m)) / 60.0 by Day = bin(TimeGenerated, 1d)\\n| extend ScheduledHours = 11.00\\n| order by Day asc","size":0,"title":"Running hours per day this month against the schedule (UTC days)","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"barchart"},"customWidth":"50","name":"Running hours per day this month against the schedule (UTC days)"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where TimeGenerated > startofmonth(now()) and Status == \\"ok\\"\\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\\n| where Utilization < 10\\n| summarize IdleVmHours = count()\\n| extend IdleCostUSD = round(IdleVmHours * 0.658, 2)","size":0,"title":"Idle GPU-hours and their cost this month","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"tiles"},"customWidth":"50","name":"Idle GPU-hours and their cost this month"},{"type":3,"content":{"version":"KqlItem/1.0","query":"GpuTelemetry_CL\\n| where Status != \\"ok\\" or XidErrors > 0 or EccUncorrected > 0\\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\\n| order by TimeGenerated desc","size":0,"title":"GPU faults and health rows","timeContext":{"durationMs":2678400000},"queryType":0,"resourceType":"microsoft.operationalinsights/workspaces","visualization":"table"},"customWidth":"50","name":"GPU faults and health rows"},{"type":3,"content":{"version":"KqlItem/1.0","query":"alertsmanagementresources\\n| where type =~ \\"microsoft.alertsmanagement/alerts\\"\\n| where tostring(properties.essentials.alertRule) contains \\"alert-variant-devbox-spoke-\\"\\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\\n| order by FiredAt desc","size":0,"title":"Alerts fired","queryType":1,"resourceType":"microsoft.resourcegraph/resources","crossComponentResources":["value::all"],"visualization":"table"},"name":"Alerts fired"}],"isLocked":false,"fallbackResourceIds":[],"$schema":"https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"}'
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
