/// Podfile and Podfile.lock pairs of the shapes real apps have, written in the layout CocoaPods 1.10–1.15
/// produce, each consistent: the doctor must read them and find nothing.
enum RealWorldFixtures {
    struct Pair {
        var name: String
        var podfile: String
        var lock: String
        /// The concrete targets the Podfile has.
        var targets: [String]
    }

    static let all: [Pair] = [singleSwiftApp, appWithTests, abstractTargetWithFlavours, firebaseSubspecs, developmentPods, gitBranchAndCommit,
                              subspecsOption, sharedPodsInAnExtension, objectiveCApp, rxEcosystem, macWorkspace, podspecURLAndExactVersions]

    static let singleSwiftApp = Pair(name: "one Swift app target", podfile: """
        platform :ios, '15.0'

        target 'Weather' do
          use_frameworks!

          pod 'Alamofire', '~> 5.8'
          pod 'Kingfisher', '~> 7.10'
          pod 'SnapKit'
        end
        """, lock: """
        PODS:
          - Alamofire (5.8.1)
          - Kingfisher (7.10.2)
          - SnapKit (5.7.1)

        DEPENDENCIES:
          - Alamofire (~> 5.8)
          - Kingfisher (~> 7.10)
          - SnapKit

        SPEC REPOS:
          trunk:
            - Alamofire
            - Kingfisher
            - SnapKit

        SPEC CHECKSUMS:
          Alamofire: 3ca42e259043ee0dc5c0cdd76c4bc568b8e42af7
          Kingfisher: 99edc495d3b7607e6425f0d6f6847b2abd6d716d
          SnapKit: 12e45ce8b2f1d2a9a5ad0d9ad0e7cc2c8b2fd52f

        PODFILE CHECKSUM: 5b3a1d7e0c7f7f0c2e7d5e4c3b2a1908f7e6d5c4

        COCOAPODS: 1.15.2
        """, targets: ["Weather"])

    static let appWithTests = Pair(name: "an app and its test targets", podfile: """
        platform :ios, '14.0'
        use_frameworks!
        inhibit_all_warnings!

        target 'Notes' do
          pod 'RealmSwift', '~> 10.45'

          target 'NotesTests' do
            inherit! :search_paths
            pod 'Quick', '~> 7.0'
            pod 'Nimble', '~> 13.0'
          end

          target 'NotesUITests' do
          end
        end
        """, lock: """
        PODS:
          - Nimble (13.0.0):
            - CwlPreconditionTesting (~> 2.1.0)
          - CwlCatchException (2.1.2):
            - CwlCatchExceptionSupport (~> 2.1.2)
          - CwlCatchExceptionSupport (2.1.2)
          - CwlPreconditionTesting (2.1.2):
            - CwlCatchException (~> 2.1.2)
          - Quick (7.3.0)
          - Realm (10.45.2):
            - Realm/Headers (= 10.45.2)
          - Realm/Headers (10.45.2)
          - RealmSwift (10.45.2):
            - Realm (= 10.45.2)

        DEPENDENCIES:
          - Nimble (~> 13.0)
          - Quick (~> 7.0)
          - RealmSwift (~> 10.45)

        SPEC REPOS:
          trunk:
            - CwlCatchException
            - CwlCatchExceptionSupport
            - CwlPreconditionTesting
            - Nimble
            - Quick
            - Realm
            - RealmSwift

        SPEC CHECKSUMS:
          CwlCatchException: 51bf8319009a31104ea6f0568730d1ecc25b6454
          CwlCatchExceptionSupport: 1345d6adb01a505933f2bc972dab60dcb9ce3e50
          CwlPreconditionTesting: ccfd08aca58d14e04062b2a3dd2fd52e09857453
          Nimble: 6c8de5aaa5e5f5a8d7a4b7a6f7e9d3c2b1a09f8e
          Quick: 749aa754fd1e7d984f2000fe051e18a3a9809179
          Realm: 3fd136cb4c83a927482a7f1612496d37beed3cf5
          RealmSwift: 513d4dcbf5bfc4d573454088b592685fc48dd716

        PODFILE CHECKSUM: 9e5a3b1f0d2c4e6a8b7c9d1e3f5a7b9c0d2e4f6a

        COCOAPODS: 1.14.3
        """, targets: ["Notes", "NotesTests", "NotesUITests"])

    static let abstractTargetWithFlavours = Pair(name: "an abstract target shared by two flavours", podfile: """
        source 'https://cdn.cocoapods.org/'
        platform :ios, '13.0'
        use_frameworks!

        abstract_target 'Shop' do
          pod 'Moya', '~> 15.0'
          pod 'SwiftyJSON', '~> 5.0'

          target 'ShopProduction' do
          end

          target 'ShopStaging' do
            pod 'FLEX', :configurations => ['Debug']
          end
        end
        """, lock: """
        PODS:
          - Alamofire (5.8.1)
          - FLEX (5.22.10)
          - Moya (15.0.0):
            - Moya/Core (= 15.0.0)
          - Moya/Core (15.0.0):
            - Alamofire (~> 5.0)
          - SwiftyJSON (5.0.1)

        DEPENDENCIES:
          - FLEX
          - Moya (~> 15.0)
          - SwiftyJSON (~> 5.0)

        SPEC REPOS:
          trunk:
            - Alamofire
            - FLEX
            - Moya
            - SwiftyJSON

        SPEC CHECKSUMS:
          Alamofire: 3ca42e259043ee0dc5c0cdd76c4bc568b8e42af7
          FLEX: f21a35fda1ee6b4a8fc9c8bf5e5aa4ae3cca7f15
          Moya: 138f0573e53411fb3dc17016add0b748dfbd78ee
          SwiftyJSON: 2f33a42c6fbc52764d96f13368585094bfd8aa5e

        PODFILE CHECKSUM: 1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e

        COCOAPODS: 1.13.0
        """, targets: ["ShopProduction", "ShopStaging"])

    static let firebaseSubspecs = Pair(name: "Firebase subspecs with a deep, quoted tree", podfile: """
        platform :ios, '12.0'

        target 'Runner' do
          use_frameworks! :linkage => :static
          pod 'Firebase/Analytics', '10.18.0'
          pod 'Firebase/Crashlytics', '10.18.0'
        end
        """, lock: """
        PODS:
          - Firebase/Analytics (10.18.0):
            - Firebase/Core
          - Firebase/Core (10.18.0):
            - Firebase/CoreOnly
            - FirebaseAnalytics (~> 10.18.0)
          - Firebase/CoreOnly (10.18.0):
            - FirebaseCore (= 10.18.0)
          - Firebase/Crashlytics (10.18.0):
            - Firebase/CoreOnly
            - FirebaseCrashlytics (~> 10.18.0)
          - FirebaseAnalytics (10.18.0):
            - FirebaseAnalytics/AdIdSupport (= 10.18.0)
            - FirebaseCore (~> 10.0)
            - FirebaseInstallations (~> 10.0)
            - GoogleUtilities/AppDelegateSwizzler (~> 7.11)
            - GoogleUtilities/MethodSwizzler (~> 7.11)
            - GoogleUtilities/Network (~> 7.11)
            - "GoogleUtilities/NSData+zlib (~> 7.11)"
            - nanopb (< 2.30910.0, >= 2.30908.0)
          - FirebaseAnalytics/AdIdSupport (10.18.0):
            - FirebaseCore (~> 10.0)
            - FirebaseInstallations (~> 10.0)
            - GoogleAppMeasurement (= 10.18.0)
          - FirebaseCore (10.18.0):
            - FirebaseCoreInternal (~> 10.0)
            - GoogleUtilities/Environment (~> 7.12)
            - GoogleUtilities/Logger (~> 7.12)
          - FirebaseCoreExtension (10.18.0):
            - FirebaseCore (~> 10.0)
          - FirebaseCoreInternal (10.18.0):
            - "GoogleUtilities/NSData+zlib (~> 7.8)"
          - FirebaseCrashlytics (10.18.0):
            - FirebaseCore (~> 10.5)
            - FirebaseInstallations (~> 10.0)
            - FirebaseSessions (~> 10.5)
            - GoogleDataTransport (~> 9.2)
            - GoogleUtilities/Environment (~> 7.8)
            - nanopb (< 2.30910.0, >= 2.30908.0)
            - PromisesObjC (~> 2.1)
          - FirebaseInstallations (10.18.0):
            - FirebaseCore (~> 10.0)
            - GoogleUtilities/Environment (~> 7.8)
            - GoogleUtilities/UserDefaults (~> 7.8)
            - PromisesObjC (~> 2.1)
          - FirebaseSessions (10.18.0):
            - FirebaseCore (~> 10.5)
            - FirebaseCoreExtension (~> 10.0)
            - FirebaseInstallations (~> 10.0)
            - GoogleDataTransport (~> 9.2)
            - GoogleUtilities/Environment (~> 7.10)
            - nanopb (< 2.30910.0, >= 2.30908.0)
            - PromisesSwift (~> 2.1)
          - GoogleAppMeasurement (10.18.0):
            - GoogleAppMeasurement/AdIdSupport (= 10.18.0)
          - GoogleAppMeasurement/AdIdSupport (10.18.0):
            - GoogleUtilities/Network (~> 7.11)
          - GoogleDataTransport (9.2.5):
            - GoogleUtilities/Environment (~> 7.7)
            - nanopb (< 2.30910.0, >= 2.30908.0)
            - PromisesObjC (< 3.0, >= 1.2)
          - GoogleUtilities/AppDelegateSwizzler (7.12.0):
            - GoogleUtilities/Environment
            - GoogleUtilities/Logger
            - GoogleUtilities/Network
          - GoogleUtilities/Environment (7.12.0):
            - PromisesObjC (< 3.0, >= 1.2)
          - GoogleUtilities/Logger (7.12.0):
            - GoogleUtilities/Environment
          - GoogleUtilities/MethodSwizzler (7.12.0):
            - GoogleUtilities/Logger
          - GoogleUtilities/Network (7.12.0):
            - GoogleUtilities/Logger
            - "GoogleUtilities/NSData+zlib"
            - GoogleUtilities/Reachability
          - "GoogleUtilities/NSData+zlib (7.12.0)"
          - GoogleUtilities/Reachability (7.12.0):
            - GoogleUtilities/Logger
          - GoogleUtilities/UserDefaults (7.12.0):
            - GoogleUtilities/Logger
          - nanopb (2.30909.1):
            - nanopb/decode (= 2.30909.1)
            - nanopb/encode (= 2.30909.1)
          - nanopb/decode (2.30909.1)
          - nanopb/encode (2.30909.1)
          - PromisesObjC (2.3.1)
          - PromisesSwift (2.3.1):
            - PromisesObjC (= 2.3.1)

        DEPENDENCIES:
          - Firebase/Analytics (= 10.18.0)
          - Firebase/Crashlytics (= 10.18.0)

        SPEC REPOS:
          trunk:
            - Firebase
            - FirebaseAnalytics
            - FirebaseCore
            - FirebaseCoreExtension
            - FirebaseCoreInternal
            - FirebaseCrashlytics
            - FirebaseInstallations
            - FirebaseSessions
            - GoogleAppMeasurement
            - GoogleDataTransport
            - GoogleUtilities
            - nanopb
            - PromisesObjC
            - PromisesSwift

        SPEC CHECKSUMS:
          Firebase: 07150e75d142fb9399f6777fa56a187b17f833a0
          FirebaseAnalytics: 45f6e2e5ef8ccbb90be73ae983c3b20fa78837f7
          FirebaseCore: 28045c1560a2600d284b9c45a904fe322dc890b6
          nanopb: 438bc412db1928dac798aa6fd75726007be04262
          PromisesObjC: c50d2056b5253dadbd6c2bea79b0674bd5a52fa4

        PODFILE CHECKSUM: 7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b

        COCOAPODS: 1.12.1
        """, targets: ["Runner"])

    static let developmentPods = Pair(name: "development pods from local paths", podfile: """
        platform :ios, '16.0'
        use_frameworks!

        target 'Banking' do
          pod 'DesignSystem', :path => 'Modules/DesignSystem'
          pod 'Networking', :path => 'Modules/Networking', :testspecs => ['Tests']
          pod 'KeychainAccess', '~> 4.2'
        end
        """, lock: """
        PODS:
          - DesignSystem (0.1.0)
          - KeychainAccess (4.2.2)
          - Networking (0.3.0):
            - KeychainAccess (~> 4.2)
          - Networking/Tests (0.3.0)

        DEPENDENCIES:
          - DesignSystem (from `Modules/DesignSystem`)
          - KeychainAccess (~> 4.2)
          - Networking (from `Modules/Networking`)
          - Networking/Tests (from `Modules/Networking`)

        SPEC REPOS:
          trunk:
            - KeychainAccess

        EXTERNAL SOURCES:
          DesignSystem:
            :path: Modules/DesignSystem
          Networking:
            :path: Modules/Networking

        SPEC CHECKSUMS:
          DesignSystem: 1a3f0b2c4d5e6f708192a3b4c5d6e7f8091a2b3c
          KeychainAccess: c0c4f7f38f6fc7bbe58f5702e25f7bd2f65abf51
          Networking: 2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c

        PODFILE CHECKSUM: 0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e

        COCOAPODS: 1.11.3
        """, targets: ["Banking"])

    static let gitBranchAndCommit = Pair(name: "pods from git, by branch and by commit", podfile: """
        platform :ios, '13.0'
        use_frameworks!

        target 'Chat' do
          pod 'MessageKit', :git => 'https://github.com/MessageKit/MessageKit.git', :branch => 'main'
          pod 'SwiftyBeaver', :git => 'https://github.com/SwiftyBeaver/SwiftyBeaver.git', :commit => 'c2f1c1f'
          pod 'InputBarAccessoryView', '~> 6.3'
        end
        """, lock: """
        PODS:
          - InputBarAccessoryView (6.3.0)
          - MessageKit (4.2.0):
            - InputBarAccessoryView (~> 6.3.0)
          - SwiftyBeaver (2.0.0)

        DEPENDENCIES:
          - InputBarAccessoryView (~> 6.3)
          - MessageKit (from `https://github.com/MessageKit/MessageKit.git`, branch `main`)
          - SwiftyBeaver (from `https://github.com/SwiftyBeaver/SwiftyBeaver.git`, commit `c2f1c1f`)

        SPEC REPOS:
          https://github.com/CocoaPods/Specs.git:
            - InputBarAccessoryView

        EXTERNAL SOURCES:
          MessageKit:
            :branch: main
            :git: https://github.com/MessageKit/MessageKit.git
          SwiftyBeaver:
            :commit: c2f1c1f
            :git: https://github.com/SwiftyBeaver/SwiftyBeaver.git

        CHECKOUT OPTIONS:
          MessageKit:
            :commit: 3f6d5a8e1c2b4f7a9d0e8c6b5a4f3e2d1c0b9a8f
            :git: https://github.com/MessageKit/MessageKit.git
          SwiftyBeaver:
            :commit: c2f1c1f
            :git: https://github.com/SwiftyBeaver/SwiftyBeaver.git

        SPEC CHECKSUMS:
          InputBarAccessoryView: 9f13a0b5f8e4d9a5bfe4fdfa4c5d7e2e1b1c9f4a
          MessageKit: 4b9a0f1e2d3c4b5a6f7e8d9c0b1a2f3e4d5c6b7a
          SwiftyBeaver: 84069991dd5dca07d7069100985badaca7f0ce82

        PODFILE CHECKSUM: 3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b

        COCOAPODS: 1.10.1
        """, targets: ["Chat"])

    static let subspecsOption = Pair(name: "subspecs named with :subspecs", podfile: """
        platform :ios, '13.0'
        use_frameworks!

        target 'Reader' do
          pod 'Moya', '~> 15.0', :subspecs => ['Core', 'Combine']
          pod 'lottie-ios', '~> 4.3'
        end
        """, lock: """
        PODS:
          - Alamofire (5.8.1)
          - lottie-ios (4.3.4)
          - Moya/Combine (15.0.0):
            - Moya/Core
          - Moya/Core (15.0.0):
            - Alamofire (~> 5.0)

        DEPENDENCIES:
          - lottie-ios (~> 4.3)
          - Moya/Combine (~> 15.0)
          - Moya/Core (~> 15.0)

        SPEC REPOS:
          trunk:
            - Alamofire
            - lottie-ios
            - Moya

        SPEC CHECKSUMS:
          Alamofire: 3ca42e259043ee0dc5c0cdd76c4bc568b8e42af7
          lottie-ios: 3d98679b41fa6fd6aff2352b3953dbd3df8a397e
          Moya: 138f0573e53411fb3dc17016add0b748dfbd78ee

        PODFILE CHECKSUM: 6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c

        COCOAPODS: 1.15.0
        """, targets: ["Reader"])

    static let sharedPodsInAnExtension = Pair(name: "a def of shared pods for an app and its extension", podfile: """
        platform :ios, '15.0'
        use_frameworks! :linkage => :static
        install! 'cocoapods', :generate_multiple_pod_projects => true

        def shared_pods
          pod 'CryptoSwift', '~> 1.8'
        end

        target 'Mail' do
          shared_pods
          pod 'SDWebImage', '~> 5.18'
        end

        target 'MailNotificationService' do
          shared_pods
        end

        post_install do |installer|
          installer.pods_project.targets.each do |target|
            target.build_configurations.each do |config|
              config.build_settings['APPLICATION_EXTENSION_API_ONLY'] = 'NO'
            end
          end
        end
        """, lock: """
        PODS:
          - CryptoSwift (1.8.1)
          - SDWebImage (5.18.10):
            - SDWebImage/Core (= 5.18.10)
          - SDWebImage/Core (5.18.10)

        DEPENDENCIES:
          - CryptoSwift (~> 1.8)
          - SDWebImage (~> 5.18)

        SPEC REPOS:
          trunk:
            - CryptoSwift
            - SDWebImage

        SPEC CHECKSUMS:
          CryptoSwift: b9c701d6f5f0b5e8a4b8c8e2a5f4d6a1b2c3d4e5
          SDWebImage: fc8f2d48bbfd72ef39d70e981bd24a3f3be53fec

        PODFILE CHECKSUM: 8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a

        COCOAPODS: 1.14.2
        """, targets: ["Mail", "MailNotificationService"])

    static let objectiveCApp = Pair(name: "an Objective-C app without frameworks", podfile: """
        source 'https://github.com/CocoaPods/Specs.git'
        platform :ios, '9.0'

        target 'Legacy' do
          pod 'AFNetworking', '~> 4.0'
          pod 'MBProgressHUD', '~> 1.2.0'
          pod 'Masonry'
          pod 'YYModel'
        end
        """, lock: """
        PODS:
          - AFNetworking (4.0.1):
            - AFNetworking/NSURLSession (= 4.0.1)
            - AFNetworking/Reachability (= 4.0.1)
            - AFNetworking/Security (= 4.0.1)
            - AFNetworking/Serialization (= 4.0.1)
            - AFNetworking/UIKit (= 4.0.1)
          - AFNetworking/NSURLSession (4.0.1):
            - AFNetworking/Reachability
            - AFNetworking/Security
            - AFNetworking/Serialization
          - AFNetworking/Reachability (4.0.1)
          - AFNetworking/Security (4.0.1)
          - AFNetworking/Serialization (4.0.1)
          - AFNetworking/UIKit (4.0.1):
            - AFNetworking/NSURLSession
          - Masonry (1.1.0)
          - MBProgressHUD (1.2.0)
          - YYModel (1.0.4)

        DEPENDENCIES:
          - AFNetworking (~> 4.0)
          - Masonry
          - MBProgressHUD (~> 1.2.0)
          - YYModel

        SPEC REPOS:
          https://github.com/CocoaPods/Specs.git:
            - AFNetworking
            - Masonry
            - MBProgressHUD
            - YYModel

        SPEC CHECKSUMS:
          AFNetworking: 7864c38297c79aaca1500c33288e429c3451fdce
          Masonry: 678fab65091a9290e40e2832a55e7ab731aad201
          MBProgressHUD: 3ee5efcc380f6a79a7cc9b363dd669c5e1ae7406
          YYModel: 2a7fdd96aaa4b86a824e26d0c517de8928c04b30

        PODFILE CHECKSUM: 2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b

        COCOAPODS: 1.10.2
        """, targets: ["Legacy"])

    static let rxEcosystem = Pair(name: "pods that share a dependency without declaring it", podfile: """
        platform :ios, '13.0'
        use_frameworks!

        target 'Timeline' do
          pod 'RxDataSources', '~> 5.0'
          pod 'RxGesture', '~> 4.0'
        end
        """, lock: """
        PODS:
          - Differentiator (5.0.0)
          - RxCocoa (6.6.0):
            - RxRelay (= 6.6.0)
            - RxSwift (= 6.6.0)
          - RxDataSources (5.0.0):
            - Differentiator (~> 5.0)
            - RxCocoa (~> 6.0)
            - RxSwift (~> 6.0)
          - RxGesture (4.0.4):
            - RxCocoa (~> 6.0)
            - RxSwift (~> 6.0)
          - RxRelay (6.6.0):
            - RxSwift (= 6.6.0)
          - RxSwift (6.6.0)

        DEPENDENCIES:
          - RxDataSources (~> 5.0)
          - RxGesture (~> 4.0)

        SPEC REPOS:
          trunk:
            - Differentiator
            - RxCocoa
            - RxDataSources
            - RxGesture
            - RxRelay
            - RxSwift

        SPEC CHECKSUMS:
          Differentiator: e8497ceab83c1b10ca233716d547b9af21b9344d
          RxCocoa: 44a80de90e25b739b5aeaae3c8c371a32e3343cc
          RxDataSources: aa47cc1ed6c500fa0dfecac5c979b723542d79cf
          RxGesture: f3efb47ed2d26a8082f7b660d4a59970e275a7f9
          RxRelay: 45eaa5db8ee4fb50e5ebd57deec0159e97fa51e6
          RxSwift: a4b44f7d24599f674deebd1818eab82e58410632

        PODFILE CHECKSUM: 4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d

        COCOAPODS: 1.15.2
        """, targets: ["Timeline"])

    static let macWorkspace = Pair(name: "a macOS app in a named workspace and project", podfile: """
        platform :osx, '12.0'
        workspace 'Editor'
        project 'App/Editor.xcodeproj'
        use_frameworks!

        target 'Editor' do
          pod 'Sparkle', '~> 2.5'
          pod 'Sourceful', '~> 0.3'
          target 'EditorTests' do
            inherit! :complete
          end
        end
        """, lock: """
        PODS:
          - Sourceful (0.3.0)
          - Sparkle (2.5.2)

        DEPENDENCIES:
          - Sourceful (~> 0.3)
          - Sparkle (~> 2.5)

        SPEC REPOS:
          trunk:
            - Sourceful
            - Sparkle

        SPEC CHECKSUMS:
          Sourceful: 6f1e4c8a0b2d3e5f7a9c1b3d5e7f9a0b2c4d6e8f
          Sparkle: 7ee0b6f4d1f1ba1e7f4d9c6e8e7a9b2c3d4e5f6a

        PODFILE CHECKSUM: 5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d

        COCOAPODS: 1.13.0
        """, targets: ["Editor", "EditorTests"])

    static let podspecURLAndExactVersions = Pair(name: "a pod from a podspec URL and exact versions", podfile: """
        platform :ios, '14.0'
        use_frameworks!

        target 'Music' do
          pod 'Charts', '= 4.1.0'
          pod 'GRDB.swift', '~> 6.24.0'
          pod 'Player', :podspec => 'https://raw.githubusercontent.com/piemonte/Player/0.13.2/Player.podspec'
        end
        """, lock: """
        PODS:
          - Charts (4.1.0):
            - Charts/Core (= 4.1.0)
          - Charts/Core (4.1.0):
            - SwiftAlgorithms (~> 1.0)
          - GRDB.swift (6.24.2):
            - GRDB.swift/standard (= 6.24.2)
          - GRDB.swift/standard (6.24.2)
          - Player (0.13.2)
          - SwiftAlgorithms (1.0.0)

        DEPENDENCIES:
          - Charts (= 4.1.0)
          - GRDB.swift (~> 6.24.0)
          - Player (from `https://raw.githubusercontent.com/piemonte/Player/0.13.2/Player.podspec`)

        SPEC REPOS:
          trunk:
            - Charts
            - GRDB.swift
            - SwiftAlgorithms

        EXTERNAL SOURCES:
          Player:
            :podspec: https://raw.githubusercontent.com/piemonte/Player/0.13.2/Player.podspec

        SPEC CHECKSUMS:
          Charts: ce0768268078eee0336f122c3c4ca248e4e204c5
          GRDB.swift: 6f4a7c1b8e1d1f2a3b4c5d6e7f8091a2b3c4d5e6
          Player: f7a5d4b1c2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7
          SwiftAlgorithms: 38dda4731d19027fdeee1125f973111bf3386b53

        PODFILE CHECKSUM: 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b

        COCOAPODS: 1.15.2
        """, targets: ["Music"])
}
