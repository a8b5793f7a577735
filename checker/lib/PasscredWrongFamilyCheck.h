#pragma once

#include "CredCheckBase.h"

namespace clang::tidy::afunix {

// afunix-passcred-wrong-family: SO_PASSCRED/SO_PASSSEC on a socket that is not AF_UNIX,
// AF_NETLINK or AF_BLUETOOTH, or SO_PASSPIDFD on a non-AF_UNIX socket: setsockopt() fails with
// EOPNOTSUPP since Linux 6.16.
class PasscredWrongFamilyCheck : public CredCheckBase {
public:
  using CredCheckBase::CredCheckBase;

protected:
  void checkModel(const SocketModel &model) override;
};

} // namespace clang::tidy::afunix
