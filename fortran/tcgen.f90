! tcgen.f90 - module tcgen: the library (include/tcgen.h) from Fortran.
!
! Two layers, both public:
!
!   tc_*     bind(C) interfaces of the C functions, one for each TC_API
!            function of tcgen.h but tc_plan_emit_c (it takes a FILE *).
!            C strings are character(kind=c_char) arrays ending in
!            c_null_char, plans are type(c_ptr), a returned string is a
!            type(c_ptr), and err is a required type(tc_error) (the C NULL
!            is not available here: the tcgen_* wrappers make it optional).
!   tcgen_*  Fortran-friendly wrappers: character(*) arguments (trailing
!            blanks trimmed; the text of tcgen_wisdom_import_string is
!            passed as it is), strings returned as
!            character(len=:), allocatable, err optional and always left
!            meaningful (code TC_OK and an empty message on success).
!
! Tensors are dense real(c_double) arrays, column-major (Fortran's own
! order) unless the plan was made with TC_ROW_MAJOR; tc_execute and
! tcgen_execute take them as assumed-size arrays, so an array of any rank
! is passed as it is (sequence association: a non-contiguous section is
! copied in and out by the compiler). A rank-0 tensor (a scalar) is passed
! as an array of one element. A plan made by tc_plan_create_views over a
! tile of a larger array takes the tile's first element instead (x(2, 2)
! for x(2:6, 2:5)): sequence association then starts there, and the plan
! reads and writes the tile through the array's strides.
!
! The sizes tcgen plans for are text ("a=b=c=400,i=8"), as in C. Statuses
! are integer(c_int), compared with the TC_* constants; planning flags are
! integer(c_int), combined with ior(). Everything here is standard Fortran
! 2008 with ISO_C_BINDING.
!
! tc_plan_create_within, tc_plan_workspace_bytes and tc_release_workspace
! are declared for the library that has them (issue 36, the workspace);
! nothing in this module calls them, so a program links against an older
! libtcgen as long as it does not either.
!
! Installed as PREFIX/include/tcgen.f90 with tcgen.mod (gfortran's, from
! the compiler that built tcgen) and PREFIX/lib/libtcgen_fortran.a (the
! wrappers' code):
!
!   gfortran prog.f90 -I$PREFIX/include -L$PREFIX/lib -ltcgen_fortran \
!       $(pkg-config --libs tcgen)
!
! A .mod file is specific to one compiler (and gfortran's to its module
! format version): with another compiler, compile the installed source
! and link its object instead of libtcgen_fortran.a (docs/integration.md).
module tcgen
  use, intrinsic :: iso_c_binding, only: c_char, c_double, c_int, c_null_char, c_null_ptr, &
      c_ptr, c_size_t, c_associated, c_f_pointer, c_float, c_float_complex, c_double_complex, &
      c_loc
  implicit none
  private

  ! ---- constants of tcgen.h --------------------------------------------

  ! TC_VERSION of the tcgen.h this module mirrors (Fortran ignores case, so
  ! the C name would clash with tc_version); tcgen_version() is the library's.
  character(len=*), parameter, public :: TC_MODULE_VERSION = '0.1.0'

  ! tc_status (a C enum: an int)
  integer(c_int), parameter, public :: TC_OK = 0
  integer(c_int), parameter, public :: TC_EINPUT = 1    ! malformed contraction, sizes, file
  integer(c_int), parameter, public :: TC_EUSAGE = 2    ! a caller error
  integer(c_int), parameter, public :: TC_ERESOURCE = 3 ! out of memory, no BLAS, I/O error
  integer(c_int), parameter, public :: TC_EINTERNAL = 4 ! a bug in tcgen

  ! planning flags (C: unsigned; combine with ior): exactly one of the first three
  integer(c_int), parameter, public :: TC_ESTIMATE = 1_c_int
  integer(c_int), parameter, public :: TC_MEASURE = 2_c_int
  integer(c_int), parameter, public :: TC_WISDOM_ONLY = 4_c_int
  integer(c_int), parameter, public :: TC_ROW_MAJOR = 8_c_int
  integer(c_int), parameter, public :: TC_EMITTABLE = 16_c_int
  ! the element type: real(c_double) without these; real(c_float) with
  ! TC_SINGLE, complex(c_double_complex) with TC_COMPLEX, both for
  ! complex(c_float_complex) (tcgen_execute and tcgen_execute_scaled take
  ! each; tc_execute, bound to C as it is, real(c_double) only)
  integer(c_int), parameter, public :: TC_SINGLE = 32_c_int
  integer(c_int), parameter, public :: TC_COMPLEX = 64_c_int

  integer, parameter, public :: TC_ERROR_MESSAGE_MAX = 512

  ! struct tc_error: what went wrong, and where in the input text (1-based
  ! line and column, 0 when not applicable); message is NUL-terminated
  ! (tcgen_error_message returns it as a Fortran string).
  type, bind(C), public :: tc_error
    integer(c_int) :: code = TC_OK
    integer(c_int) :: line = 0
    integer(c_int) :: column = 0
    character(kind=c_char) :: message(TC_ERROR_MESSAGE_MAX) = c_null_char
  end type tc_error

  ! struct tc_tensor_desc: a tensor as nmode labels, extents and strides
  ! (each the c_loc of an integer(c_int64_t), target array of nmode;
  ! stride c_null_ptr: dense column-major), for tc_plan_create_views. A
  ! tile of a larger array, x(i0:i1, j0:j1, ...), has the strides of x;
  ! tc_execute then takes the tile's first element, x(i0, j0, ...).
  type, bind(C), public :: tc_tensor_desc
    integer(c_int) :: nmode = 0
    type(c_ptr) :: label = c_null_ptr
    type(c_ptr) :: extent = c_null_ptr
    type(c_ptr) :: stride = c_null_ptr
  end type tc_tensor_desc

  ! ---- the C functions -------------------------------------------------

  public :: tc_version, tc_status_name
  public :: tc_plan_create, tc_plan_create_views, tc_execute, tc_execute_scaled, tc_plan_algorithm
  public :: tc_plan_predicted_seconds
  public :: tc_plan_origin, tc_plan_destroy
  public :: tc_plan_create_within, tc_plan_workspace_bytes, tc_release_workspace
  public :: tc_wisdom_export_file, tc_wisdom_import_file, tc_wisdom_export_string
  public :: tc_wisdom_import_string, tc_wisdom_forget

  interface
    ! const char *tc_version(void)
    type(c_ptr) function tc_version() bind(C, name='tc_version')
      import :: c_ptr
    end function tc_version

    ! const char *tc_status_name(tc_status s)
    type(c_ptr) function tc_status_name(s) bind(C, name='tc_status_name')
      import :: c_ptr, c_int
      integer(c_int), value :: s
    end function tc_status_name

    ! tc_plan *tc_plan_create(const char *contraction, const char *sizes,
    !                         unsigned flags, tc_error *err)
    type(c_ptr) function tc_plan_create(contraction, sizes, flags, err) &
        bind(C, name='tc_plan_create')
      import :: c_ptr, c_char, c_int, tc_error
      character(kind=c_char), intent(in) :: contraction(*), sizes(*)
      integer(c_int), value :: flags
      type(tc_error), intent(inout) :: err
    end function tc_plan_create

    ! tc_plan *tc_plan_create_views(const tc_tensor_desc *C, const tc_tensor_desc *A,
    !     const tc_tensor_desc *B, double alpha, double beta, unsigned flags, tc_error *err)
    type(c_ptr) function tc_plan_create_views(C, A, B, alpha, beta, flags, err) &
        bind(C, name='tc_plan_create_views')
      import :: c_ptr, c_int, c_double, tc_tensor_desc, tc_error
      type(tc_tensor_desc), intent(in) :: C, A, B
      real(c_double), value :: alpha, beta
      integer(c_int), value :: flags
      type(tc_error), intent(inout) :: err
    end function tc_plan_create_views

    ! tc_status tc_execute(const tc_plan *p, const double *A, const double *B, double *C)
    integer(c_int) function tc_execute(p, A, B, C) bind(C, name='tc_execute')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: p
      real(c_double), intent(in) :: A(*), B(*)
      real(c_double), intent(inout) :: C(*)
    end function tc_execute

    ! tc_status tc_execute_scaled(const tc_plan *p, const double *alpha, const double *A,
    !                             const double *B, const double *beta, double *C)
    integer(c_int) function tc_execute_scaled(p, alpha, A, B, beta, C) &
        bind(C, name='tc_execute_scaled')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: p
      real(c_double), intent(in) :: alpha, beta
      real(c_double), intent(in) :: A(*), B(*)
      real(c_double), intent(inout) :: C(*)
    end function tc_execute_scaled

    ! const char *tc_plan_algorithm(const tc_plan *p): owned by the plan
    type(c_ptr) function tc_plan_algorithm(p) bind(C, name='tc_plan_algorithm')
      import :: c_ptr
      type(c_ptr), value :: p
    end function tc_plan_algorithm

    ! double tc_plan_predicted_seconds(const tc_plan *p)
    real(c_double) function tc_plan_predicted_seconds(p) &
        bind(C, name='tc_plan_predicted_seconds')
      import :: c_ptr, c_double
      type(c_ptr), value :: p
    end function tc_plan_predicted_seconds

    ! const char *tc_plan_origin(const tc_plan *p): "estimate", "measure" or "wisdom"
    type(c_ptr) function tc_plan_origin(p) bind(C, name='tc_plan_origin')
      import :: c_ptr
      type(c_ptr), value :: p
    end function tc_plan_origin

    ! void tc_plan_destroy(tc_plan *p)
    subroutine tc_plan_destroy(p) bind(C, name='tc_plan_destroy')
      import :: c_ptr
      type(c_ptr), value :: p
    end subroutine tc_plan_destroy

    ! tc_plan *tc_plan_create_within(const char *contraction, const char *sizes,
    !     unsigned flags, size_t workspace_bytes, tc_error *err): not yet in every libtcgen
    type(c_ptr) function tc_plan_create_within(contraction, sizes, flags, workspace_bytes, err) &
        bind(C, name='tc_plan_create_within')
      import :: c_ptr, c_char, c_int, c_size_t, tc_error
      character(kind=c_char), intent(in) :: contraction(*), sizes(*)
      integer(c_int), value :: flags
      integer(c_size_t), value :: workspace_bytes
      type(tc_error), intent(inout) :: err
    end function tc_plan_create_within

    ! size_t tc_plan_workspace_bytes(const tc_plan *p): not yet in every libtcgen
    integer(c_size_t) function tc_plan_workspace_bytes(p) &
        bind(C, name='tc_plan_workspace_bytes')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: p
    end function tc_plan_workspace_bytes

    ! void tc_release_workspace(void): not yet in every libtcgen
    subroutine tc_release_workspace() bind(C, name='tc_release_workspace')
    end subroutine tc_release_workspace

    ! tc_status tc_wisdom_export_file(const char *path, tc_error *err)
    integer(c_int) function tc_wisdom_export_file(path, err) &
        bind(C, name='tc_wisdom_export_file')
      import :: c_int, c_char, tc_error
      character(kind=c_char), intent(in) :: path(*)
      type(tc_error), intent(inout) :: err
    end function tc_wisdom_export_file

    ! tc_status tc_wisdom_import_file(const char *path, tc_error *err)
    integer(c_int) function tc_wisdom_import_file(path, err) &
        bind(C, name='tc_wisdom_import_file')
      import :: c_int, c_char, tc_error
      character(kind=c_char), intent(in) :: path(*)
      type(tc_error), intent(inout) :: err
    end function tc_wisdom_import_file

    ! char *tc_wisdom_export_string(tc_error *err): malloc'ed, the caller frees it
    type(c_ptr) function tc_wisdom_export_string(err) bind(C, name='tc_wisdom_export_string')
      import :: c_ptr, tc_error
      type(tc_error), intent(inout) :: err
    end function tc_wisdom_export_string

    ! tc_status tc_wisdom_import_string(const char *wisdom, tc_error *err)
    integer(c_int) function tc_wisdom_import_string(wisdom, err) &
        bind(C, name='tc_wisdom_import_string')
      import :: c_int, c_char, tc_error
      character(kind=c_char), intent(in) :: wisdom(*)
      type(tc_error), intent(inout) :: err
    end function tc_wisdom_import_string

    ! void tc_wisdom_forget(void)
    subroutine tc_wisdom_forget() bind(C, name='tc_wisdom_forget')
    end subroutine tc_wisdom_forget

    ! the C library's, for the strings tcgen returns
    integer(c_size_t) function c_strlen(s) bind(C, name='strlen')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function c_strlen

    subroutine c_free(p) bind(C, name='free')
      import :: c_ptr
      type(c_ptr), value :: p
    end subroutine c_free
  end interface

  ! ---- the Fortran-friendly wrappers -----------------------------------

  public :: tcgen_version, tcgen_status_name, tcgen_error_message
  public :: tcgen_plan_create, tcgen_execute, tcgen_plan_algorithm, tcgen_plan_origin
  ! the other element types (TC_SINGLE, TC_COMPLEX): a name each, not a
  ! generic, since a generic would take arrays of one rank only
  public :: tcgen_execute_s, tcgen_execute_c, tcgen_execute_z
  public :: tcgen_execute_scaled_s, tcgen_execute_scaled_c, tcgen_execute_scaled_z
  public :: tcgen_plan_destroy
  public :: tcgen_wisdom_export_file, tcgen_wisdom_import_file
  public :: tcgen_wisdom_export_string, tcgen_wisdom_import_string

contains

  ! s as a C string: trailing blanks trimmed, NUL-terminated.
  pure function c_string(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: c
    c = trim(s) // c_null_char
  end function c_string

  ! The NUL-terminated C string at p as a Fortran string ('' for NULL).
  function f_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: k, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do k = 1, n
      s(k:k) = chars(k)
    end do
  end function f_string

  ! The library's version (TC_MODULE_VERSION when the module and the library agree).
  function tcgen_version() result(s)
    character(len=:), allocatable :: s
    s = f_string(tc_version())
  end function tcgen_version

  ! A status code's short English name ("bad input", ...).
  function tcgen_status_name(status) result(s)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: s
    s = f_string(tc_status_name(status))
  end function tcgen_status_name

  ! err's message, up to its NUL ('' after a success).
  function tcgen_error_message(err) result(s)
    type(tc_error), intent(in) :: err
    character(len=:), allocatable :: s
    integer :: k, n
    n = 0
    do while (n < TC_ERROR_MESSAGE_MAX)
      if (err%message(n + 1) == c_null_char) exit
      n = n + 1
    end do
    allocate (character(len=n) :: s)
    do k = 1, n
      s(k:k) = err%message(k)
    end do
  end function tcgen_error_message

  ! tc_plan_create: a plan (c_null_ptr on failure, with err set; test with
  ! c_associated). flags: TC_ESTIMATE, TC_MEASURE or TC_WISDOM_ONLY, with
  ! TC_ROW_MAJOR and TC_EMITTABLE or'ed in as needed.
  function tcgen_plan_create(contraction, sizes, flags, err) result(plan)
    character(len=*), intent(in) :: contraction, sizes
    integer(c_int), intent(in) :: flags
    type(tc_error), intent(out), optional :: err
    type(c_ptr) :: plan
    type(tc_error) :: e
    plan = tc_plan_create(c_string(contraction), c_string(sizes), flags, e)
    if (present(err)) err = e
  end function tcgen_plan_create

  ! tc_execute: C = alpha * A * B + beta * C by the plan's algorithm.
  ! Arrays of any rank, in the plan's layout, of real(c_double)
  ! (tcgen_execute_s, _c, _z: real(c_float), complex(c_float_complex),
  ! complex(c_double_complex)); returns a status.
  function tcgen_execute(plan, A, B, C) result(status)
    type(c_ptr), intent(in) :: plan
    real(c_double), intent(in) :: A(*), B(*)
    real(c_double), intent(inout) :: C(*)
    integer(c_int) :: status
    status = tc_execute(plan, A, B, C)
  end function tcgen_execute

  ! The address of another type's data as what the C binding's real(c_double)
  ! dummies take: C reads the plan's type there.
  function as_doubles(p) result(x)
    type(c_ptr), intent(in) :: p
    real(c_double), pointer :: x(:)
    call c_f_pointer(p, x, [1])
  end function as_doubles

  ! tc_execute and tc_execute_scaled (alpha, beta: c_null_ptr for the
  ! plan's) on addresses: what the typed wrappers below share.
  function execute_at(plan, alpha, A, B, beta, C) result(status)
    type(c_ptr), intent(in) :: plan, alpha, A, B, beta, C
    integer(c_int) :: status
    real(c_double), pointer :: al(:), be(:)
    if (.not. c_associated(alpha)) then
      status = tc_execute(plan, as_doubles(A), as_doubles(B), as_doubles(C))
      return
    end if
    al => as_doubles(alpha)
    be => as_doubles(beta)
    status = tc_execute_scaled(plan, al(1), as_doubles(A), as_doubles(B), be(1), as_doubles(C))
  end function execute_at

  function tcgen_execute_s(plan, A, B, C) result(status)
    type(c_ptr), intent(in) :: plan
    real(c_float), intent(in), target :: A(*), B(*)
    real(c_float), intent(inout), target :: C(*)
    integer(c_int) :: status
    status = execute_at(plan, c_null_ptr, c_loc(A(1)), c_loc(B(1)), c_null_ptr, c_loc(C(1)))
  end function tcgen_execute_s

  function tcgen_execute_c(plan, A, B, C) result(status)
    type(c_ptr), intent(in) :: plan
    complex(c_float_complex), intent(in), target :: A(*), B(*)
    complex(c_float_complex), intent(inout), target :: C(*)
    integer(c_int) :: status
    status = execute_at(plan, c_null_ptr, c_loc(A(1)), c_loc(B(1)), c_null_ptr, c_loc(C(1)))
  end function tcgen_execute_c

  function tcgen_execute_z(plan, A, B, C) result(status)
    type(c_ptr), intent(in) :: plan
    complex(c_double_complex), intent(in), target :: A(*), B(*)
    complex(c_double_complex), intent(inout), target :: C(*)
    integer(c_int) :: status
    status = execute_at(plan, c_null_ptr, c_loc(A(1)), c_loc(B(1)), c_null_ptr, c_loc(C(1)))
  end function tcgen_execute_z

  ! tc_execute_scaled for the other types: alpha and beta in the plan's type.
  function tcgen_execute_scaled_s(plan, alpha, A, B, beta, C) result(status)
    type(c_ptr), intent(in) :: plan
    real(c_float), intent(in), target :: alpha, beta, A(*), B(*)
    real(c_float), intent(inout), target :: C(*)
    integer(c_int) :: status
    status = execute_at(plan, c_loc(alpha), c_loc(A(1)), c_loc(B(1)), c_loc(beta), c_loc(C(1)))
  end function tcgen_execute_scaled_s

  function tcgen_execute_scaled_c(plan, alpha, A, B, beta, C) result(status)
    type(c_ptr), intent(in) :: plan
    complex(c_float_complex), intent(in), target :: alpha, beta, A(*), B(*)
    complex(c_float_complex), intent(inout), target :: C(*)
    integer(c_int) :: status
    status = execute_at(plan, c_loc(alpha), c_loc(A(1)), c_loc(B(1)), c_loc(beta), c_loc(C(1)))
  end function tcgen_execute_scaled_c

  function tcgen_execute_scaled_z(plan, alpha, A, B, beta, C) result(status)
    type(c_ptr), intent(in) :: plan
    complex(c_double_complex), intent(in), target :: alpha, beta, A(*), B(*)
    complex(c_double_complex), intent(inout), target :: C(*)
    integer(c_int) :: status
    status = execute_at(plan, c_loc(alpha), c_loc(A(1)), c_loc(B(1)), c_loc(beta), c_loc(C(1)))
  end function tcgen_execute_scaled_z


  ! The chosen algorithm's name ("ca-dgemv"); '' for a null plan.
  function tcgen_plan_algorithm(plan) result(s)
    type(c_ptr), intent(in) :: plan
    character(len=:), allocatable :: s
    s = f_string(tc_plan_algorithm(plan))
  end function tcgen_plan_algorithm

  ! How the plan was made: 'estimate', 'measure' or 'wisdom'.
  function tcgen_plan_origin(plan) result(s)
    type(c_ptr), intent(in) :: plan
    character(len=:), allocatable :: s
    s = f_string(tc_plan_origin(plan))
  end function tcgen_plan_origin

  ! Frees the plan and leaves plan null (a null plan is a no-op).
  subroutine tcgen_plan_destroy(plan)
    type(c_ptr), intent(inout) :: plan
    call tc_plan_destroy(plan)
    plan = c_null_ptr
  end subroutine tcgen_plan_destroy

  ! tc_wisdom_export_file: merges this process's wisdom into the file.
  function tcgen_wisdom_export_file(path, err) result(status)
    character(len=*), intent(in) :: path
    type(tc_error), intent(out), optional :: err
    integer(c_int) :: status
    type(tc_error) :: e
    status = tc_wisdom_export_file(c_string(path), e)
    if (present(err)) err = e
  end function tcgen_wisdom_export_file

  ! tc_wisdom_import_file: all of the file's decisions, or none.
  function tcgen_wisdom_import_file(path, err) result(status)
    character(len=*), intent(in) :: path
    type(tc_error), intent(out), optional :: err
    integer(c_int) :: status
    type(tc_error) :: e
    status = tc_wisdom_import_file(c_string(path), e)
    if (present(err)) err = e
  end function tcgen_wisdom_import_file

  ! The process's wisdom as text ('' with err set when out of memory).
  function tcgen_wisdom_export_string(err) result(s)
    type(tc_error), intent(out), optional :: err
    character(len=:), allocatable :: s
    type(tc_error) :: e
    type(c_ptr) :: p
    p = tc_wisdom_export_string(e)
    s = f_string(p)
    call c_free(p)
    if (present(err)) err = e
  end function tcgen_wisdom_export_string

  ! tc_wisdom_import_string: text from tcgen_wisdom_export_string, taken
  ! whole or refused whole (with its line and column).
  function tcgen_wisdom_import_string(wisdom, err) result(status)
    character(len=*), intent(in) :: wisdom
    type(tc_error), intent(out), optional :: err
    integer(c_int) :: status
    type(tc_error) :: e
    status = tc_wisdom_import_string(wisdom // c_null_char, e)
    if (present(err)) err = e
  end function tcgen_wisdom_import_string

end module tcgen
