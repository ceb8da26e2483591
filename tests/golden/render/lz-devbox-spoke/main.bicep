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
      script: 'H4sIAAAAAAAC/71ce3fbtpL/X58CZY5PyVSiZOfVKlX3uLabem8de/1I21W1Kk1CNmuJ5JKUH83Nd9/fDAA+JFJ22ns3PbVEEBgAM4PfPADo2Rf9yzDqZ9edZ+IqWc7idDEU704uhB/P59LP41TY0W0YhF4vW4QijnwpPLEIo2UuRe870b/10v48vurrxvTZe+7+kcURvd79c5lKcRRHIVHavZJR7qAnLwpEfi3FtfTm+bWQUZDEYZRz2W6SzEPfy0NQ+FG/v89llFFBksaXMhP29s4bd4D/todfv9nedtxOJnPRk8tOGGW5N5+LXiB6CzF48+qV6C8zGqLvzfvz8NIMdG3kHfQpvmupbT57+BTffvslOPTD8enR9OD4hy87z77gRsTH5CG/jqMXJTNXeZlirjKVgbh8MFXeCj1oVerP42XQC8GxrkiXERVlD1kuFwGm+QyUhagORtMWB7+cHOydH+yLsRLXP71FMOHajf/qgrQrFHuaopuHC5k6Q1SV4j/Pjt+LeYhviUx5ThBX3E6+US1+xb+jo/191g5MTno8YRb6up60E7cDL/fMxEkr0uVcdgW6+yGcy6xP5B0eINN+lyzP5VwuZJ4+TPd+Erl3OZdv28l74sORuLuOM8kTzeN4LmZeOM+6AmPLr6Em2XV8l4mZvFPMyKg0EmGeiSz8E2rtZd12+ndpmEOHia1a/9P4TthnuZcvM/HFSFjxjeWwUoBDbjuh9x8O9w93h6Jcn67YPdofCoieV6t9ery3EK/d+7fiMkY/LMXs2ktk5nSFnGeynXga+wtFJJ5DY0W48K7Q7K2arx8voxz6CuYTi0/2DsUlBg9eYQgRjUI12MCFECtlmQuJT5BnLmvO/E4PvUWYZWF09TtxJ2PEwCJ5yDTPHty1lZDJ9FYS6b+BLBuUroAcTHr+gHWxMxiIj1aFqKJJcpTWUFjq8cH6BGWCXtIQ2snPvQxq5S0SVAyhWqnMrnnSerpd8WrwQlgXkX62REx8uwszqVDhhJFHvCAuRYGXBliul6mXPvBwhS1vJb5fXEJuSyUbUlOhAWtYgR1CHVJP6DMhjjiAfqVxtMCaFDbkk2cOmwgGQHxOfzp+N90/PO3WCs/Od88P6sWHR/tn0x8OfzqgxWEK3x//LOzDs2Px9evBtrg433PKBlCrOgXo8xGVuJ1wkcRpLoAEknDKPF/N40vz/TrPE5eVIjVFhAzme5yZb2nRPIv9G5kXT8tLaIUvs6ImgNh8XaZzMNhN5f8uwZJO578uDk5/FSNhd0icFg0Kklgk3RCAf99dLsOgG3kL2V3m4Tz8kxXGhdp2F3IRpw/uMpOB+Z7HMAddQD7AFqCQSq5oKcpJDNRxg9S760rfd2WaxmnmLiM/TlPgoQzc23gO8nOp6QRpCBZM8T8putVxOlpgGG2cuVKJ172SuW01iNXqCmsVzi2nU8j3ESpFPaYD1arQ+MfBwcl0f/fXM9DY6fxyuI9PTNaPFwmGb6fW+w+nR0PxSxiI3+zx/ziT579B9ezfgq8ctO50AjkTUXxnO0NmzSy8ByS1DweqhmZUM5ypyqodw50En6NCn9ziS5anCX2xuQHmsPVrb2vR2wrOt34cbh0Nt87+23KgBsnc86Xdqa7p/M8wmsWjghT9+ROw7y5zv6ioBtTaPU2vkUDZ5yL0UxgrP46C0cCwBYy2fbgMaoawfOVUE7CoVG1X1+wK30tI16ZA5WSZj87TJYxqDoQ0X9E73o1eDJxVtiWu+uLHASpi1eUBaupv0FCuL+99mQBCjs8OSGe71UGcK9oH90kI58gRQCa5JhwgMPgPPYJMbFkowHJh3+p5Wpa1SwWXsCizNF5UTOOXmdg7+8Am/D2ZXqigGL/v7066+IhzcbZMaF3LgAouohswPhI80IkLskz+Fpy7JY0IE9tZZ6we5mweezmGVJ30B2++lExtrTqNRk8FhkpeybSYToT+1PQ6Kw1IgyMyFPxAlpwa25FhSrgIMrtkykkaxrCtMANnSZz3T+XVcu6lDhsYODtYX8wtMpLsi5JzCH/JY0eLIDT0JSmIf40FRh7gZRznBVu4XK27xMuv3T9gce0K/ls0Gnb69PLLUn/DMi3MhNXAY8wbrYedVVdCxImMbLxi3ZnVK1SYR6NwIaDAnpVaXBLgqTSRaGu+ptSlpJ3KkvNgQ5qGr8l+/NSkTf8LJtXNjHuqPus4Y5GlG/b726+/cXdevXT1Z99IsG9k2idkhb//H14S9rQ9GO0MdrZ7g53eYNvq1sjC08DazUYfrSNNiLyaHFhgfequ4FfBxZXx4pH5iucSQHaYwWmdwaxqowqD01b5QKPurCYhceNguUg4QuiKmdOA795nyK0Uj1pW/jLwjCE1yyv1ASoEdlOyXgDTsVWijjVRQ1goy5ZJL/WvYdj2LvZ3xQdFaPhb9tweD3rfuBPYNSbmkKLQIhmJgVrdjBKVIS3cqzReJvY2V12oSliPapz3YTBVjoENH9qX0xnsaQkHZFDhD0aIV0LlwN/INJJzCqEEN+DCJJW3YQy3XvmlsLzs9oP9b77pvvwaZs8ggGozKkdZ0+TK+iwH0yA+Q2XmUmhoOzWk1QLT8mpYWrBhaDu2/ojBH2/u53PyOHo3/Demv/DS+aEXxb0EDnBqTYqWX1HTXo+HQBaGPie8XHlQzF5UuNRN1oROtlYRgwnMUAhvxp3B90NcbzdKdDypynNOyk1N4f5aXUthaMYGyUZuo3h3Ix9GQHqHgP6Z6P3NfxyocZTodD4cvN8/PiVXzNYKTMxCKAkY1o74BtDWNdjJg5fcRzTYT/ywH0iyHRloGN99AxFThanESd6nIBRNMUruQA0RBKzB/fZgsGNR3EOhpwd++gihMoqrZ4jgQXEoBvcImYIwg5uEtEoc5SmlDJCEOQWwIb45OT3Gun+zPQBfQXBHaG8EUSflqHwfWQP435S2OQSCQhFyxL+cUkAM/KX4cf/osL9/IrxlEMZiBhecnHpkp9DxSyg4MhoRPAuq3CFXmKaw99Pu2dmB4jKNj6ZKfRsGnR0dTndP31GFsVquUEpkGxAeKN2lB4QJ5FlSwW3qLcoXFDKUTxwpaFA3RWkcLP2cApGy3jIKgdZhUJaokMFEDFzM5rvbmWiEgWyncOQzGzASFJgJPOD0AGTwu3rx+0qKYFikDkwCgF6q/sg386IHzgUU0EI+0EC593gNdSLIojDPpT92zeco4kXrueVUYLyGRnVEqrUHdWIpDxwEWjyJ2waIgskCr23n6b2wurZ34j+lkzZMVDgUQWOXsuo53RL8qOmx6+eDspfmGQ3UXtFQp04uIoTcriJWpDWBQG5KIrNJq0pF+J0eWfwnu+c/do2TKght4IwjW4q1mXJaFH6pTnHiBdXm1EQUiwIEKLlamhvWBKK1CiTUltQVpgmrPswN4zOZOOIrMa7JwaAN6oO65UzqIVJdZl3Bs6tyM2AemmphRmbNThxTSviRZXbSpYdfpsf/cBo9yqTTHAvQrFddDcz/3LjonC7m/F4KmCIAtEtuuQQPfd0arHevXKQBd9zt3jZgDnl5figZ2mKu29jlFuijEcLZ4DKvabGSjNWznPFgstG2awqFW0N+4ZSAiC1qjSec2gxif8lpKqiGxzACfVLhrLDvvDQCskPzJPQHXMwZobObMEkQchaRYenU8NogIA5Z40IiSz2zXbetseWwE6AfPxIXoBah+A6INTHuPlkARak58muLItmXpVntS7L9WPYuUj7TgJ9oFOMFeQhM2RlOVnn5tIAT1n06DxFPkF9cMlTnj8E8xHo9SoLHl39gpQK9PUH1y8yyQ2z7aMEUTHWEMHZdd/JJ2MhBAdK1cmalrhGLMhORaEc9CP28sjx0LEAfal0X5J0qW9fI0NCcdjbr5/EVi/OKxMk91Ud0pYfD67haXgyF5E4+mLGFt8TrWg4iMin4fpFGn4VyHtAq8XSCYijgl5BGaVaSF/LRYlrgoutiecEw5/xdhYf2aySfaVTMWua8R7kQaPXbMqlhIalhcTXY0vwaLxl6W/h/u8Z8leTguarBOM3NkAKYb2D2Wn07pNCBkyOOszlpstYWk1TyKLIvawQ4T6KxhRaD04KrSejfEJw/Z7tQB5FZmEK3yXnhl78LG+62yJcIfjJH7fxcYzeklGHNIlEb0iluW+dnUDxRxRtTq46XJeNvnBYprcSCxj8yCli1TpwdolVCtRuBOWrhEKX8Cm3Wrwu+P0U2vIfFWliPSgltsBSmtKFjk8/eZYwuZWDTG5grgi3kn7IMQZpTbmfRDl7o99F1jg/GIeWXdnkzjXbR9O5kIZciTgNNE55Tn1hcilrFuTWhOpejcgGOdbNTqKiuqJNwJYsX2RW599QjpkFN6qaPtlEzey01MUbi0UZb6C5Tz640++rTB8CH5D5vBZbYwvwcY6tyHvTHqzFD1GQoKjDXMJUqK1TrGivG2xOHEWY8UeBDzTm7/pd6oFeb6RNQkoRqbo9+c8dWeFKstAX1qINjxRUVGM+9xWXgiSuMTI+xghNEQ02U19hC1wDofiploQMR1FQIqJ6tVbVfeVtbnTqXxzvJGctE16anNkrqXRsd7POADCPXAkpi4ZmYyds702Lnh7a1pxxdEaVNtSynon3gruvBBYIPU0/IYSj2WlzCy3atFFvsh7TNNSq42lTlAntgI0YXpUzrclDMoL0yDLGRxnt44YoGsUzVX3gpdu2mHNQ2Nbsod9xOZOrDQRyVvFwSyBCfrmb3Uw8R/C3y5IqBtVfqoYn8EW/aXWD/7ij8vkIZUfq0IEHbe1MO1ttJnJOkNtBQkmwlcl7uF+5VSFS2EYnIdZxn2ANQM1x5J4OWKZ5Q4LkP//NnRXitAuNet7HYtnQeAjjD26tT9ew8Wt1fQmOjfPqZzTysSXBs+hd7a63fUHTg+xflxuvI7MzQel3bm0FhA4V9hhCdCVaKrVBFe2BlgEVnT1Zfr2ztNoluDylrQ57AtV7Dad6HVHa4MNwMyn/Fchfer8J9YX9EEjYNBnBqPyJM+EQ6wYG/KfjkPGq6Jwjka6kyNXIdM9Rttd6eSoOKAXlC/GFaaBNT4xi5sfbN+CVCrq64dZRDh28mmnBhnRfZSiYIfd5Ucy3MBUu5TUwL6YMgvCLXdTXsMK7fiqDaQqCVmfyrfZFCoM1eCMuyFrlp8ToNbK9XaLJ9n+MTqGMWyJtBDiy/SvqPcNMYUJ9w78Pp7pFguNXQK+zvsfVSMYuE121NCOrb2v1rzama1GZbqo3gBSdxxeH+45ZTt9ijQ0LY3A0pPU/qUS0/0+WfYU6ZTZQsWFIyaov58pi1NIjJ7K5BJpf0xfbg5dev3rx+1GQaQkrWNUqqaAOpdcPZaCt4fpW62EyXESBC/KEz/46w92jWbfXIvJo6T7EuT7K6fpth21P2TJyxGRTvUi+5Dn3kVz3/hk5/MXVh/8wjbqGxq0zp5zZ+mqV8kjFU8KAUU70W/25rR6FMxdDJ+4THXBq740qwSRto0HnOHtZPdLp8bok0kY9pfpnxQSZOyWV9fNvjjUI60yigK/lDYfjiaEpnKUflHkt9/0vvh1IbglrCFTXSgrxirzCdjCxzkoIOWY4qGXsTW+r35EHT7popNZaG263FuevUjHWwSkYbksWrzTTxQk//24LxjcmL8ZromwG2YFWzihdI26yQ9E+dyx1RlGLOpFrNNfWBz9EP3jxrIXakXKORtRVQngl/tQJlq0dpbWx/mMgfulUY3jxWB6dRd+FYjZ1sIUvNTKwob8MirZVMiqdn5Fhw2tD3oqIvHiMcOqkOSQl75i3nyI572CLNgXjkjOClR8e3hI38mLyjk0XmWFGFekYaoQ6g3sVL5ESv4bDTZg9rhDoOvO6QPMGWtoj5EREb8VbPHDfI18iWj8J1WsXaIjS9CSbYTxFbGW1nDdlO0rFxxQvadeFUsP2YbjSIfUtU9mceEX7J3HKTgldpZeWXa44AyDj2o3oKTzFcRQIKk6D3bS3rMcRaU+3PUpvh/7vwefpfITtFx/wlXFqK4XjcyuuNYjpgvkErWla8UQtbEaPk/FamLw9AUyBa8p55Y3E8fDUYTDYLSmsnwWkBo3RuhJjmNAJmpUXRcaFdpFnUP+/bdktKFcXRUt2MytVOHtFcqxGbCh+eV8eKCrjLhM6/1iXehMkcqOihKLHFNysiM+IiTdNV6xWMwNZe1vwFGqE5fMoHZZrcBX2GaOXk1XE9T716SLXJjTBuwX0YgGl0ssscMWo+5dUaPFePpXEqFvFC+kCaPbKg/XyAncvpdLaXj/zsthvF6hQgvtBmVGaS5PX4qzzaVImh4YmhRv3EXG0bhK8T0SY+tlCrwWjd3s+oG7/YWqCGHONRZbOV3MXm/Wq8Teo8462I7e2G4xWrpyPMpBpjt83uRXMMV0Mfc7B3Rmnv1roc083GO5PWGhzDzcYvWmo0RGa0LTYbv2zrtR6NqcqvNlcuQi5V+3Vb7VpUpeq+aatbiXRUza/baq7EESVjv2lrUXrFvILa6ihPuVhezfXqAQqkOWiRRDUOoSWw2bVcA6qneR01z8N6zMNzKkv1CzqFiJXEXhu0/m8kjDQQ/P1cx2b3rMSuqpE2U/l7ZvoxDXmKdhSmvilrVrlAu5o3e4rdZwNMeEbMbjb0hfWsS5MlNLYUE60JmeiqyVytZ26sUUXm1WoFPUtFqTKrNs+iGPSqta9E3uZotbrOaZf2Ux1UM6K3zFUWuhNBd37MvueCDmvlpKUzvqfTeEFHBdaZu/BuZIBdfru4swaBZPk0vuE1tl6vco2hoSadsEfv6rZFxyg5bZIWnLPoass7GREUQmuHasilwK09dSY/pVecqqFkx3Wc8SFNuwJq1ofFIRGgTvXuABXwcbdKLXPXo1YzMYVcmz1RfQmkslysA817rMkMzQtRcI1P5UlvdjQ2XfjAQtFHqQvU0ccOdZBRCTA0grRlXRoCC93iib4XN+OzGSsDLlSA18SWvqECta0r09ZiKzAbpuXROCJDe01r9xA2rMSZyxdc7eKaQmbTLSgE1FPsXmf6mlWGKJpPHWcj8mzQyZC2fxCe/Gbuz+g7oMS1+dyuLdxa9+XZAM4nfeRbiYUKYi9QNxuWt0wtVdsaMgEgWYke+o7KItkkeUWIWemiqrXKt5w7Xr++UV7dUAMoLm+gJ3PRjds+pWfLWVW7L9bUrulSQuvFEiO5JpgRBmbo8qrp+RlHPR7dY+cUSsYJETaebwV1hciIr1XzxfHyHiSdSLwyx3v8ZR7PyP+1c9ETtVuAgZznHnZRoDVFY8dp0NsitkJ3G05O19fCc8PF6pG8h4rYabkxPIGqg/2r7Z1J7WSs97CyoUXNv9UTqrOW5buIbxWtqnEYECmj6mxIt7WtUIWVU7H2j+fnJ8JoThr61yaCojIk3YvrbZV71m/pJXDMm9FBxVf6txCyzzoU266ATfdbavebKpeTvFztmbVdPc3GauVO/l3XT1lJ+Mr5iBKPsK5QOA++nzpyoC6XwsRBhi8Gg9plPGVfDJIoaTOpxrTtzmDQLW/GP3YTqyv+IR9a79Jpkq8GL7rVi/HQET5bL37EUJCdtCv3wN3vobikK/oena6iqZNqBfH03cG5ncn5rLohzPdaWZfAIaN+xevLOHgwslW4vuF3AZgK9rkl35atUKE+MU5k08G+JI4yybd+miqooBx7PAhjATG984eED3B4Zaf9yn3LzY1/ktFVfq2v1ZLHRtNxnJWmZctsdcx3BGgaIbltp2DnPL6a6uMAzNOueO6lV9mqONWyXnhYUXhtzh5CvXbEtyN2fbmYHl6qo614RCzN7oT2HCvYbvwAcs2wW8+VdyaOSQsoWt+BuEYV0874KIr8i8lqgxc1f96qXa1QTYGw+h5Vo/q3OblONZ2nesPMXqxNlbW4MlGl1aSSFR0n/T7jr7ZtFb9aYXVrvIBHbpR/hZoiM6Uz8re12yYGlhvHurM2VrVKrCcvIrioGJ/C67U+qT9qz10NBlXBYYdQ3zLXKqjObQ03/koO/TTBWe2ncsQ/9Q+InByfnuNBja9wuQx+QVUxlCkfNptOeaLTKSnudKqnSuOhKM9mdaYnZpLTqfxmUMe/XsTBpp8nqv7gkPllIpn7fX1PRn/2m363R9/XXvuZovEFMniTzr7MfAT0hBGj6o8U6R8fqf7aE/aaNvy+E5b5+Ez1NekQAo1gXBAJ5p2De+mf0WmX0RN+TcmIZls79J2zJd+cOQAPdfS/XefdZ3GDf8XoL/JC/WaK8gswWYrk0knnOPo+jvMz6Y9eDzI8EaldOjgoTdmu7y9Tz3+g51dAt/GhurEz6fzs0d237x9GPKzMBZNgP//C9LSz8RdlvfrrOKu/p9XZJZ9oFMn8Lk5vzCgr4v4sCat1RYQ7p5JPQY28+R18V/PIfOrsP2BRhT6SkenoQdJLLziO5g8ndJ5+1G9k4wKbkGEPG2lpEysV3/x8DucKPmbUSyW5XpVyeLGXEDRdCb4T7erTzvnO/wEGrpsQQU0AAA=='
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

// The dev box reported Xid or uncorrected ECC errors, a GPU missing (from nvidia-smi or amd-smi), or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-variant-devbox-spoke --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.
resource gpuAlertFaults 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: 'alert-variant-devbox-spoke-gpu-faults'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'variant-devbox-spoke: GPU faults'
    description: 'The dev box reported Xid or uncorrected ECC errors, a GPU missing (from nvidia-smi or amd-smi), or a failing driver. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name vm-variant-devbox-spoke --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.'
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
